/**
 * Who is told what in a usage-alert run: each recipient (an address, or a channel as `channel:<id>`) with the changes
 * of the rules that name it, each under its own ledger key; how a change shows (its rule, product name, data age and
 * the link to the full digest report); and the tally the telling keeps. tell-changes.ts sends to these targets,
 * unknown-changes.ts adds the changes a person decided to send again.
 */
import type { ChannelConfig } from '../config/channels-schema.ts';
import type { PulseConfig } from '../config/schema.ts';
import type { UsageAlertRule } from '../config/usage-alerts-schema.ts';
import { channelAddress, channelLabel } from '../core/channels/channel-targets.ts';
import { usageAlertLedgerKey } from '../core/delivery/ledger-keys.ts';
import type { JobPorts } from '../ports/job-ports.ts';
import type { AlertItem } from './alert-message.ts';
import type { StateChange } from './evaluate.ts';
import type { EvidenceLocation } from './evidence.ts';
import { dataAgeHours } from './periods.ts';
import { type ReportDigest, reportLinkKey, reportLinks } from './report-links.ts';
import { seriesKey } from './series.ts';

/** `usageAlertStates` keeps the changes whose delivery is unknown; without it they are only reported. */
export type TellPorts = Pick<
  JobPorts,
  'ledger' | 'mailer' | 'suppressions' | 'logger' | 'clock' | 'channels' | 'usageAlertStates' | 'archive'
>;

export interface TellOptions {
  /** What a person decided about the changes whose delivery is unknown, after checking the mail log or channel. */
  unknownDeliveries?: 'resend' | 'confirm' | undefined;
  /** Only these rules' unknown changes (`--rule`). */
  ruleIds?: readonly string[] | undefined;
  /** Where the run's evidence is kept: every message names it. */
  evidence?: EvidenceLocation | undefined;
  /** Which digest's report covers which product, when the config has no `digests` (report-links.ts). */
  reportDigests?: readonly ReportDigest[] | undefined;
}

export interface Told {
  /** Emails and channel posts sent now. */
  emails: number;
  posts: number;
  /** Changes a recipient already had (a rerun). */
  alreadyTold: number;
  /** Deliveries that failed (released: the next run tries again), were suppressed, or are unknown. */
  failed: number;
  unknown: number;
  /** Changes whose delivery was unknown, sent again (`resend`) or recorded as delivered (`confirm`). */
  resent: number;
  confirmed: number;
  errors: string[];
  /** Series with a change some recipient has not got: their state is not written. */
  untold: Set<string>;
}

/** The counts a run reports of its telling. */
export const TOLD_COUNTS = ['emails', 'posts', 'alreadyTold', 'failed', 'unknown', 'resent', 'confirmed'] as const;

export interface Target {
  /** A lower-case address, or `channel:<id>`. */
  recipient: string;
  email?: { address: string; name?: string };
  channel?: ChannelConfig;
  items: Entry[];
}

export interface Entry {
  key: string;
  item: AlertItem;
  /** A change kept because its delivery was unknown (loaded for a person's decision), not one judged now. */
  kept?: true;
}

/** Every recipient of every change, each with its changes in the run's order. */
export function targetsOf(config: PulseConfig, changes: readonly StateChange[], now: Date): Map<string, Target> {
  const targets = new Map<string, Target>();
  for (const change of changes) {
    const item = itemOf(config, change, now);
    for (const target of recipientsOf(config, item.rule)) {
      const known = targets.get(target.recipient) ?? { ...target, items: [] };
      const state = change.repeat ? 'firing-again' : change.state;
      known.items.push({ key: usageAlertLedgerKey(seriesKey(change), change.period, state, target.recipient), item });
      targets.set(target.recipient, known);
    }
  }
  return targets;
}

/** Each alert's link to the full digest report, where a reader can open one (report-links.ts). */
export async function linkReports(
  config: PulseConfig,
  ports: TellPorts,
  targets: Map<string, Target>,
  digests: readonly ReportDigest[] | undefined,
): Promise<void> {
  const items = [...targets.values()].flatMap((t) => t.items.map((e) => e.item));
  const changes = items.map((i) => i.change);
  const links = await reportLinks(config, ports.archive, changes, ports.logger, digests ?? config.digests);
  for (const item of items) {
    const url = links.get(reportLinkKey(item.change));
    if (url) item.reportUrl = url;
  }
}

/** A change as a message shows it (its rule must be in the config). */
export function itemOf(config: PulseConfig, change: StateChange, now: Date): AlertItem {
  const rule = config.usageAlerts!.rules.find((r) => r.id === change.ruleId)!;
  const product = config.products.find((p) => p.id === change.productId);
  return {
    change,
    rule,
    productName: product?.name ?? change.productId,
    dataAgeHours: dataAgeHours(change.period, rule.period.unit, now),
  };
}

export function recipientsOf(config: PulseConfig, rule: UsageAlertRule): Omit<Target, 'items'>[] {
  return [
    ...rule.recipients.map((r) => ({
      recipient: r.address.toLowerCase(),
      email: r.name ? { address: r.address, name: r.name } : { address: r.address },
    })),
    ...config.channels
      .filter((c) => rule.channels.includes(c.id))
      .map((channel) => ({ recipient: channelAddress(channel.id), channel })),
  ];
}

export const labelOf = (target: Omit<Target, 'items'>): string =>
  target.channel ? channelLabel(target.channel) : target.recipient;

export const describe = (e: unknown): string => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));
