/**
 * How each kind of Pulse email is named in the owner's notices about one of its deliveries: the notice of an
 * unknown delivery (unknown-delivery-notice.ts) and of a bounce, complaint or reject (mail-events/). One builder per
 * sender, so both notices name a delivery the same way; each sender's own ledger key builder stays beside it.
 */
import type { DigestConfig, LicensesConfig } from '../../config/schema.ts';

export interface DeliveryLabel {
  /** Who is told: the digest's owner, or `licenses.owner`. */
  owner: string;
  /** What was sent, in a sentence: "the license alerts email of 2026-11-24 (12 alerts)". */
  what: string;
  /** Short, for the subject: "license alerts of 2026-11-24". */
  subjectLabel: string;
  /** The line under the title. */
  heading: string;
  /** The notice's headers, naming what it is about. */
  headers: Record<string, string>;
}

export function digestLabel(digest: DigestConfig, isoWeek: string): DeliveryLabel {
  return {
    owner: digest.owner,
    what: `the digest “${digest.title}” (${digest.id}) for ${isoWeek}`,
    subjectLabel: `${digest.title} (${digest.id}), ${isoWeek}`,
    heading: `${digest.title} · ${isoWeek}`,
    headers: { 'X-Pulse-Digest': digest.id, 'X-Pulse-Week': isoWeek },
  };
}

/** A license alerts email of one recipient's local `date`; `alerts` when known. */
export function licenseAlertsLabel(licenses: LicensesConfig, date: string, alerts?: number): DeliveryLabel {
  const count = alerts === undefined ? '' : ` (${alerts} alert${alerts === 1 ? '' : 's'})`;
  return {
    owner: licenses.owner.address,
    what: `the license alerts email of ${date}${count}`,
    subjectLabel: `license alerts of ${date}`,
    heading: `License alerts · ${date}`,
    headers: { 'X-Pulse-License-Alerts-Notice': date },
  };
}

export function licenseReportLabel(licenses: LicensesConfig, title: string, isoWeek: string): DeliveryLabel {
  return {
    owner: licenses.owner.address,
    what: `the license registry report “${title}” for ${isoWeek}`,
    subjectLabel: `${title}, ${isoWeek}`,
    heading: `${title} · ${isoWeek}`,
    headers: { 'X-Pulse-License-Report-Notice': isoWeek },
  };
}

/** A usage alerts email (its first change's rule names the owner), by the period that change was about. */
export function usageAlertsLabel(rule: { id: string; owner: string }, period: string): DeliveryLabel {
  return {
    owner: rule.owner,
    what: `the usage alerts email of rule ${rule.id} for ${period}`,
    subjectLabel: `usage alerts of ${rule.id}, ${period}`,
    heading: `Usage alerts · ${rule.id} · ${period}`,
    headers: { 'X-Pulse-Usage-Alerts-Notice': rule.id },
  };
}
