/**
 * Tells each recipient of the run's state changes, at most once per (change, recipient): the changes of all rules
 * that name a recipient go in one email, or one post per channel, each change under its own ledger key
 * (`usageAlertLedgerKey`), claimed before the send and settled together after it, as the license alerts do. A
 * change told to nobody new (all keys sent, or unknown) sends nothing; a send that certainly failed releases its
 * keys, and the series it was about keeps its state (the run does not write it), so the next run tells it again.
 */
import type { ChannelConfig } from '../config/channels-schema.ts';
import type { PulseConfig } from '../config/schema.ts';
import type { UsageAlertRule } from '../config/usage-alerts-schema.ts';
import { channelAddress, channelLabel } from '../core/channels/channel-targets.ts';
import { channelSend } from '../core/channels/deliver-to-channel.ts';
import {
  claimKey,
  type Delivery,
  type Send,
  sendClaimed,
  settleSend,
  suppressionOf,
} from '../core/delivery/deliver-once.ts';
import { deliveredOrUnderWay } from '../core/delivery/delivery-tally.ts';
import { usageAlertLedgerKey } from '../core/delivery/ledger-keys.ts';
import type { JobPorts } from '../ports/job-ports.ts';
import { NotSentError } from '../ports/not-sent.ts';
import { type AlertItem, usageAlertChannelMessage, usageAlertEmail } from './alert-message.ts';
import type { StateChange } from './evaluate.ts';
import type { EvidenceLocation } from './evidence.ts';
import { dataAgeHours } from './periods.ts';
import { seriesKey } from './series.ts';

export type TellPorts = Pick<JobPorts, 'ledger' | 'mailer' | 'suppressions' | 'logger' | 'clock' | 'channels'>;

export interface Told {
  /** Emails and channel posts sent now. */
  emails: number;
  posts: number;
  /** Changes a recipient already had (a rerun). */
  alreadyTold: number;
  /** Deliveries that failed (released: the next run tries again), were suppressed, or are unknown. */
  failed: number;
  unknown: number;
  errors: string[];
  /** Series with a change some recipient has not got: their state is not written. */
  untold: Set<string>;
}

interface Target {
  /** A lower-case address, or `channel:<id>`. */
  recipient: string;
  email?: { address: string; name?: string };
  channel?: ChannelConfig;
  items: { key: string; item: AlertItem }[];
}

export async function tellChanges(
  config: PulseConfig,
  ports: TellPorts,
  changes: readonly StateChange[],
  /** Where the run's evidence is kept: every message names it. */
  evidence?: EvidenceLocation,
): Promise<Told> {
  const told: Told = { emails: 0, posts: 0, alreadyTold: 0, failed: 0, unknown: 0, errors: [], untold: new Set() };
  const now = ports.clock.now();
  for (const target of targetsOf(config, changes, now).values()) {
    const claimed: { key: string; item: AlertItem }[] = [];
    if (target.email) {
      const suppressed = await suppressionOf(ports, target.email.address);
      if (suppressed) {
        note(told, target, target.items, suppressed);
        continue;
      }
    }
    for (const entry of target.items) {
      const claim = await claimKey(ports, entry.key);
      if (claim === 'claimed') claimed.push(entry);
      else if (claim.outcome === 'alreadySent') told.alreadyTold++;
      else note(told, target, [entry], claim);
    }
    if (claimed.length === 0) continue;
    const items = claimed.map((c) => c.item);
    const keys = claimed.map((c) => c.key);
    const delivery = target.channel
      ? await settleSend(ports, keys, postOf(ports, target.channel, items, keys[0]!, { now, evidence }), {
          receiver: channelLabel(target.channel),
        })
      : await sendClaimed(ports, keys, {
          ...(await usageAlertEmail(items, { from: config.mail.from, to: target.email!, now, evidence })),
          delivery: keys[0]!,
        });
    if (delivery.outcome === 'sent') told[target.channel ? 'posts' : 'emails']++;
    else note(told, target, claimed, delivery);
  }
  return told;
}

/** Every recipient of every change, each with its changes in the run's order. */
function targetsOf(config: PulseConfig, changes: readonly StateChange[], now: Date): Map<string, Target> {
  const rules = new Map((config.usageAlerts?.rules ?? []).map((r) => [r.id, r]));
  const names = new Map(config.products.map((p) => [p.id, p.name ?? p.id]));
  const targets = new Map<string, Target>();
  for (const change of changes) {
    const rule = rules.get(change.ruleId)!;
    const item: AlertItem = {
      change,
      rule,
      productName: names.get(change.productId) ?? change.productId,
      dataAgeHours: dataAgeHours(change.period, rule.period.unit, now),
    };
    for (const target of recipientsOf(config, rule)) {
      const known = targets.get(target.recipient) ?? { ...target, items: [] };
      const state = change.repeat ? 'firing-again' : change.state;
      known.items.push({ key: usageAlertLedgerKey(seriesKey(change), change.period, state, target.recipient), item });
      targets.set(target.recipient, known);
    }
  }
  return targets;
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

/** A delivery that needs attention: counted, named, and its series left untold (unless it may have gone out). */
function note(told: Told, target: Target, entries: { item: AlertItem }[], delivery: Delivery): void {
  if (deliveredOrUnderWay(delivery)) return;
  if (delivery.outcome === 'unknown' || delivery.outcome === 'sentUnconfirmed') told.unknown++;
  else told.failed++;
  const to = target.channel ? channelLabel(target.channel) : target.recipient;
  told.errors.push(`usage alert to ${to}: ${delivery.outcome}: ${delivery.error ?? ''}`);
  // Certainly not told: the next run judges these periods again and tells what is still missing.
  if (delivery.outcome === 'failed') for (const { item } of entries) told.untold.add(seriesKey(item.change));
}
