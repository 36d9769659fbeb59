/**
 * What a delivery's ledger key says about it, for the owner's notice of a bounce, complaint or reject: whose email
 * it was (the digest's owner, `licenses.owner`, or a usage rule's owner) and how it is named (delivery-label.ts), from the key formats of
 * each sender. An owner's notice is never noticed about (a bounce of one would otherwise send another, and so on),
 * nor is a preview copy (`--preview --send-to`: the person who sent it is watching).
 */
import type { PulseConfig } from '../config/schema.ts';
import {
  type DeliveryLabel,
  digestLabel,
  licenseAlertsLabel,
  licenseReportLabel,
  usageAlertsLabel,
} from '../core/delivery/delivery-label.ts';
import {
  HELD_NOTICE_PREFIX,
  LICENSE_ALERT_PREFIX,
  PREVIEW_DELIVERY_PREFIX,
  parseDigestLedgerKey,
  parseLicenseReportLedgerKey,
  parseUsageAlertLedgerKey,
  USAGE_ALERT_PROBLEM_PREFIX,
} from '../core/delivery/ledger-keys.ts';
import { unknownNoticeKey } from '../core/delivery/unknown-delivery-notice.ts';

/** The ledger key of the owner's notice of a delivery's bounce, complaint or reject: one per delivery. */
export const mailEventNoticeKey = (deliveryKey: string) => `notice-mail#${deliveryKey}`;

/**
 * What no owner is told about: the owners' own notices (held digests, unknown deliveries, mail events, usage rules
 * that cannot be judged), previews.
 */
const UNTOLD_PREFIXES = [
  HELD_NOTICE_PREFIX,
  unknownNoticeKey(''),
  mailEventNoticeKey(''),
  USAGE_ALERT_PROBLEM_PREFIX,
  PREVIEW_DELIVERY_PREFIX,
];

export type DeliveryOf =
  /** One of Pulse's emails to its recipients, and how its owner's notice names it. */
  | { kind: 'delivery'; label: DeliveryLabel }
  /** A notice to an owner, or a preview copy: recorded and suppressed like any, but nobody is told. */
  | { kind: 'untold' }
  /** A key no sender in this config writes (a digest since removed, or not a Pulse key at all). */
  | { kind: 'unknown'; why: string };

/** `sentAt`: when the message was sent (a license alerts email is named by its day). */
export function deliveryOf(config: PulseConfig, key: string, sentAt: string): DeliveryOf {
  if (UNTOLD_PREFIXES.some((p) => key.startsWith(p))) return { kind: 'untold' };
  const digestKey = parseDigestLedgerKey(key);
  if (digestKey) {
    const digest = config.digests.find((d) => d.id === digestKey.digestId);
    if (!digest) return { kind: 'unknown', why: `digest ${digestKey.digestId} is not in the config` };
    return { kind: 'delivery', label: digestLabel(digest, digestKey.isoWeek) };
  }
  const { licenses } = config;
  const reportKey = parseLicenseReportLedgerKey(key);
  if (reportKey || key.startsWith(LICENSE_ALERT_PREFIX)) {
    if (!licenses) return { kind: 'unknown', why: 'the config has no "licenses" section' };
    if (!reportKey) return { kind: 'delivery', label: licenseAlertsLabel(licenses, sentAt.slice(0, 10)) };
    const title = licenses.report?.title ?? 'License registry report';
    return { kind: 'delivery', label: licenseReportLabel(licenses, title, reportKey.isoWeek) };
  }
  const usageKey = parseUsageAlertLedgerKey(key);
  if (usageKey) {
    const rule = config.usageAlerts?.rules.find((r) => r.id === usageKey.ruleId);
    if (!rule) return { kind: 'unknown', why: `usage alert rule ${usageKey.ruleId} is not in the config` };
    return { kind: 'delivery', label: usageAlertsLabel(rule, usageKey.period) };
  }
  return { kind: 'unknown', why: 'no Pulse sender writes such a key' };
}
