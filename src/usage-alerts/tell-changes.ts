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
 * A change whose claim failed, or that another live run is telling, holds back its series' later changes to that
 * recipient (they follow it): a `resolved` without the `firing` it ends would be the first thing the reader hears.
 */
import type { ChannelConfig } from '../config/channels-schema.ts';
import type { PulseConfig } from '../config/schema.ts';
import { channelLabel } from '../core/channels/channel-targets.ts';
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
import type { MailMessage } from '../ports/mailer.ts';
import { NotSentError } from '../ports/not-sent.ts';
import { type AlertItem, usageAlertChannelMessage, usageAlertEmail } from './alert-message.ts';
import {
  type Entry,
  labelOf,
  linkReports,
  type Target,
  type TellOptions,
  type TellPorts,
  type Told,
  targetsOf,
} from './alert-targets.ts';
import type { StateChange } from './evaluate.ts';
import type { EvidenceLocation } from './evidence.ts';
import { seriesKey } from './series.ts';
import { addKept, confirm, type Kept, updateKept } from './unknown-changes.ts';

export { type TellOptions, type TellPorts, TOLD_COUNTS, type Told } from './alert-targets.ts';

/** The header listing the ledger keys an email tells, space-separated (no key holds one: a segment is percent-encoded). */
export const USAGE_ALERT_KEYS_HEADER = 'X-Pulse-Usage-Alert-Keys';

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
      // Another live run is telling it (and its series' later changes, after it): that run writes the state once it
      // has told; if its send fails, this run's state must not stand in for it, so the next run judges it again.
      if (claim.outcome === 'inProgressElsewhere') {
        waiting.add(series);
        if (!entry.kept) told.untold.add(series);
      }
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
