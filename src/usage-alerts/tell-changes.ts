/**
 * Tells each recipient of the run's state changes, at most once per (change, recipient): the changes of all rules
 * that name a recipient go in one email, or one post per channel, each change under its own ledger key
 * (`usageAlertLedgerKey`), claimed before the send and settled together after it, as the license alerts do. A
 * change told to nobody new (all keys sent, or unknown) sends nothing; a send that certainly failed releases its
 * keys, and the series it was about keeps its state (the run does not write it), so the next run tells it again.
 *
 * A delivery whose outcome is unknown counts as told (never sent again on its own) and its changes are kept for a
 * person's decision (unknown-changes.ts): `unknownDeliveries: 'resend'` adds them to the recipient's message of the
 * run and takes their keys over, `'confirm'` records them as delivered without sending. A webhook is at least once:
 * its claims left unknown are taken over by any run, and a post that may not have arrived leaves its series untold,
 * so the next run posts it again under the same id.
 *
 * A change whose claim failed holds back its series' later changes to that recipient (they follow it next run): a
 * `resolved` without the `firing` it ends would be the first thing the reader hears.
 */
import type { ChannelConfig } from '../config/channels-schema.ts';
import type { PulseConfig } from '../config/schema.ts';
import type { UsageAlertRule } from '../config/usage-alerts-schema.ts';
import { channelAddress, channelLabel } from '../core/channels/channel-targets.ts';
import { channelSend } from '../core/channels/deliver-to-channel.ts';
import {
  claimKey,
  confirmUnknown,
  type Delivery,
  type Send,
  sendClaimed,
  settleSend,
  suppressionOf,
} from '../core/delivery/deliver-once.ts';
import { deliveredOrUnderWay } from '../core/delivery/delivery-tally.ts';
import { usageAlertLedgerKey } from '../core/delivery/ledger-keys.ts';
import type { JobPorts } from '../ports/job-ports.ts';
import type { MailMessage } from '../ports/mailer.ts';
import { NotSentError } from '../ports/not-sent.ts';
import { type AlertItem, usageAlertChannelMessage, usageAlertEmail } from './alert-message.ts';
import type { StateChange } from './evaluate.ts';
import type { EvidenceLocation } from './evidence.ts';
import { dataAgeHours } from './periods.ts';
import { type ReportDigest, reportLinkKey, reportLinks } from './report-links.ts';
import { seriesKey } from './series.ts';
import { changeOf, unknownEntryOf } from './unknown-changes.ts';

/** The header listing the ledger keys an email tells, space-separated (no key holds one: a segment is percent-encoded). */
export const USAGE_ALERT_KEYS_HEADER = 'X-Pulse-Usage-Alert-Keys';

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

interface Target {
  /** A lower-case address, or `channel:<id>`. */
  recipient: string;
  email?: { address: string; name?: string };
  channel?: ChannelConfig;
  items: Entry[];
}

interface Entry {
  key: string;
  item: AlertItem;
  /** A change kept because its delivery was unknown (loaded for a person's decision), not one judged now. */
  kept?: true;
}

/** What a target's run changes in its kept unknown changes. */
interface Kept {
  add: Entry[];
  /** Kept keys now settled: sent again, found sent, or confirmed. */
  drop: string[];
}

export async function tellChanges(
  config: PulseConfig,
  ports: TellPorts,
  changes: readonly StateChange[],
  opts: TellOptions = {},
): Promise<Told> {
  const told: Told = {
    emails: 0,
    posts: 0,
    alreadyTold: 0,
    failed: 0,
    unknown: 0,
    resent: 0,
    confirmed: 0,
    errors: [],
    untold: new Set(),
  };
  const now = ports.clock.now();
  const targets = targetsOf(config, changes, now);
  if (opts.unknownDeliveries) await addKept(config, ports, targets, opts.ruleIds, now, told);
  await linkReports(config, ports, targets, opts.reportDigests);
  for (const target of targets.values()) {
    const kept: Kept = { add: [], drop: [] };
    await tellTarget(config, ports, target, opts, now, told, kept);
    await updateKept(ports, target, kept, told);
  }
  return told;
}

async function tellTarget(
  config: PulseConfig,
  ports: TellPorts,
  target: Target,
  opts: TellOptions,
  now: Date,
  told: Told,
  kept: Kept,
): Promise<void> {
  if (target.email) {
    const suppressed = await suppressionOf(ports, target.email.address);
    if (suppressed) return note(told, target, target.items, suppressed);
  }
  const webhook = target.channel?.kind === 'webhook';
  const resend = opts.unknownDeliveries === 'resend';
  const claimed: Entry[] = [];
  // A series whose change could not be claimed here (certainly not told) tells its later changes after it.
  const waiting = new Set<string>();
  for (const entry of target.items) {
    const series = seriesKey(entry.item.change);
    if (waiting.has(series)) continue;
    // A webhook's claim left unknown (a run died holding it) is taken over: a program takes each change at least once.
    const claim = await claimKey(ports, entry.key, resend || webhook ? { resendUnknown: true } : {});
    if (claim === 'claimed') claimed.push(entry);
    else if (claim.outcome === 'alreadySent') {
      told.alreadyTold++;
      if (entry.kept) kept.drop.push(entry.key);
    } else if (claim.outcome === 'unknown' && opts.unknownDeliveries === 'confirm') {
      await confirm(ports, target, entry, told, kept);
    } else {
      note(told, target, [entry], claim);
      if (claim.outcome === 'failed') waiting.add(series);
      // Met unknown (its run died before it could keep it): kept now, for a person's decision.
      if (claim.outcome === 'unknown' && !entry.kept) kept.add.push(entry);
    }
  }
  if (claimed.length === 0) return;
  const items = claimed.map((c) => c.item);
  const keys = claimed.map((c) => c.key);
  const again = claimed.filter((c) => c.kept);
  // The message's keys are settled together: its record says it was sent again after an unknown delivery.
  const settle = again.length > 0 ? { resendUnknown: true } : {};
  const delivery = target.channel
    ? await settleSend(ports, keys, postOf(ports, target.channel, items, keys[0]!, { now, evidence: opts.evidence }), {
        receiver: channelLabel(target.channel),
        ...settle,
      })
    : await sendClaimed(ports, keys, await emailOf(config, target, items, keys, now, opts.evidence), settle);
  if (delivery.outcome === 'sent') {
    told[target.channel ? 'posts' : 'emails']++;
    told.resent += again.length;
    kept.drop.push(...again.map((c) => c.key));
    return;
  }
  note(told, target, claimed, delivery);
  if (!webhook && (delivery.outcome === 'unknown' || delivery.outcome === 'sentUnconfirmed'))
    kept.add.push(...claimed.filter((c) => !c.kept));
}

/** `--confirm-unknown`: the person saw it arrive; recorded as sent, nothing sent. */
async function confirm(ports: TellPorts, target: Target, entry: Entry, told: Told, kept: Kept): Promise<void> {
  try {
    const now = await confirmUnknown(ports, entry.key);
    if (now === 'inProgressElsewhere') return;
    told[now === 'confirmed' ? 'confirmed' : 'alreadyTold']++;
    kept.drop.push(entry.key);
  } catch (e) {
    told.failed++;
    told.errors.push(`usage alert to ${labelOf(target)}: ${entry.key} not confirmed: ${describe(e)}`);
  }
}

/**
 * The kept unknown changes of every recipient of the selected rules, added to its target (created when the run
 * judged nothing new for it). A kept change whose rule is gone from the config, or no longer names the recipient,
 * stays kept and unsent.
 */
async function addKept(
  config: PulseConfig,
  ports: TellPorts,
  targets: Map<string, Target>,
  ruleIds: readonly string[] | undefined,
  now: Date,
  told: Told,
): Promise<void> {
  const store = ports.usageAlertStates;
  if (!store) return;
  const rules = (config.usageAlerts?.rules ?? []).filter((r) => ruleIds === undefined || ruleIds.includes(r.id));
  const recipients = new Map(rules.flatMap((r) => recipientsOf(config, r)).map((t) => [t.recipient, t]));
  for (const [recipient, base] of recipients) {
    let entries: Awaited<ReturnType<typeof store.unknownOf>>;
    try {
      entries = await store.unknownOf(recipient);
    } catch (e) {
      told.errors.push(`usage alerts to ${labelOf(base)}: the unknown deliveries were not read: ${describe(e)}`);
      continue;
    }
    for (const entry of entries) {
      const change = changeOf(entry);
      const rule = rules.find((r) => r.id === change?.ruleId);
      if (!change || !rule || !recipientsOf(config, rule).some((t) => t.recipient === recipient)) continue;
      const target = targets.get(recipient) ?? { ...base, items: [] };
      targets.set(recipient, target);
      const known = target.items.find((i) => i.key === entry.key);
      if (known) known.kept = true;
      else target.items.push({ key: entry.key, item: itemOf(config, change, now), kept: true });
    }
  }
}

/** Keeps the target's changes left unknown now and drops those settled; a failure is reported, nothing lost. */
async function updateKept(ports: TellPorts, target: Target, kept: Kept, told: Told): Promise<void> {
  const store = ports.usageAlertStates;
  if (!store || (kept.add.length === 0 && kept.drop.length === 0)) return;
  try {
    const add = kept.add.map((e) => unknownEntryOf(e.key, e.item.change));
    await store.updateUnknown(target.recipient, add, kept.drop);
  } catch (e) {
    told.errors.push(
      `usage alerts to ${labelOf(target)}: the changes whose delivery is unknown were not kept for ` +
        `--resend-unknown (${kept.add.length} to add, ${kept.drop.length} to drop): ${describe(e)}`,
    );
  }
}

/**
 * The email of a recipient's changes, naming its delivery (the first key) and, in USAGE_ALERT_KEYS_HEADER, every
 * change it tells: what a bounce or a check of the outbox matches against the ledger.
 */
async function emailOf(
  config: PulseConfig,
  target: Target,
  items: AlertItem[],
  keys: string[],
  now: Date,
  evidence: EvidenceLocation | undefined,
): Promise<MailMessage> {
  const email = await usageAlertEmail(items, { from: config.mail.from, to: target.email!, now, evidence });
  return { ...email, headers: { ...email.headers, [USAGE_ALERT_KEYS_HEADER]: keys.join(' ') }, delivery: keys[0]! };
}

/** Every recipient of every change, each with its changes in the run's order. */
function targetsOf(config: PulseConfig, changes: readonly StateChange[], now: Date): Map<string, Target> {
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
async function linkReports(
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
function itemOf(config: PulseConfig, change: StateChange, now: Date): AlertItem {
  const rule = config.usageAlerts!.rules.find((r) => r.id === change.ruleId)!;
  const product = config.products.find((p) => p.id === change.productId);
  return {
    change,
    rule,
    productName: product?.name ?? change.productId,
    dataAgeHours: dataAgeHours(change.period, rule.period.unit, now),
  };
}

function recipientsOf(config: PulseConfig, rule: UsageAlertRule): Omit<Target, 'items'>[] {
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

function postOf(
  ports: TellPorts,
  channel: ChannelConfig,
  items: AlertItem[],
  key: string,
  opts: { now: Date; evidence: EvidenceLocation | undefined },
): Send {
  if (!ports.channels)
    return () => Promise.reject(new NotSentError(`${channelLabel(channel)}: no channels in this runtime`));
  return channelSend({ ...ports, channels: ports.channels }, channel, usageAlertChannelMessage(items, opts), {
    key,
  });
}

/**
 * A delivery that needs attention: counted, named, and its series left untold when it certainly did not go out (or,
 * for a webhook, may not have: at least once).
 */
function note(told: Told, target: Target, entries: readonly Entry[], delivery: Delivery): void {
  if (deliveredOrUnderWay(delivery)) return;
  const unknown = delivery.outcome === 'unknown' || delivery.outcome === 'sentUnconfirmed';
  const webhook = target.channel?.kind === 'webhook';
  told[unknown ? 'unknown' : 'failed']++;
  const decide =
    unknown && !webhook
      ? `; not sent again: check the ${target.channel ? 'channel' : "mail server's log"}, then run ` +
        '`pulse usage-alerts --resend-unknown` (not delivered) or `--confirm-unknown` (delivered)'
      : '';
  told.errors.push(`usage alert to ${labelOf(target)}: ${delivery.outcome}: ${delivery.error ?? ''}${decide}`);
  // Certainly not told: the next run judges these periods again and tells what is still missing (a kept change's
  // series moved on long ago: it stays kept instead).
  if (delivery.outcome === 'failed' || (unknown && webhook))
    for (const { item, kept } of entries) if (!kept) told.untold.add(seriesKey(item.change));
}

const labelOf = (target: Omit<Target, 'items'>): string =>
  target.channel ? channelLabel(target.channel) : target.recipient;

const describe = (e: unknown): string => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));
