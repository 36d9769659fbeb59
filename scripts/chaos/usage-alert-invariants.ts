/**
 * The chaos invariants of the usage alerts (src/usage-alerts/), read from the ledger's `usage-alert#` records, the
 * series' stored states (`usage-alert-state#…`, both from the state table: src/console/ledger-snapshot.ts), the
 * channel posts the sink wrote and, at an epoch's end, the changes a backtest of the epoch's rules finds:
 *
 * - at most once per (change, recipient): an email's changes are its X-Pulse-Usage-Alert-Keys (invariants.ts
 *   `checkEmails`); a chat post's are its first key (its `x-pulse-delivery` id) and the keys recorded done under its
 *   id, never fewer than its summary counts, no key in two posts, and all posts of a channel together never tell
 *   more changes than the ledger has keys for it (`checkUsageAlertPosts`); a webhook's are its `data.changes`, each
 *   under one `webhook-id` (channel-invariants.ts);
 * - the states agree with what was told (`checkUsageAlertStates`): no `resolved` claimed for a recipient without a
 *   `firing` claimed before it, and a stored state's last change up to its last judged period is the last one
 *   claimed for each recipient (firing since its `since`, or resolved or nothing when quiet);
 * - after an epoch's fault-free closing run (`checkUsageAlertsTold`): every change the backtest finds up to a series'
 *   last judged period has a ledger record for every recipient (done, unknown, or still claimed by a killed run),
 *   a webhook's done ones posted and an email's done ones in the outbox, and no record names a change it does not.
 */
import type { LedgerItem } from '../../src/console/ledger-snapshot.ts';
import { channelEventId } from '../../src/core/channels/webhook-event.ts';
import { USAGE_ALERT_PREFIX, usageAlertLedgerKey } from '../../src/core/delivery/ledger-keys.ts';
import type { SeriesState } from '../../src/ports/usage-alert-states.ts';
import { seriesKey } from '../../src/usage-alerts/series.ts';
import { usageAlertSubject } from './channel-invariants.ts';
import type { ChaosState } from './invariants.ts';
import type { EpochUsageAlerts } from './usage-alerts.ts';

/** A usage alert ledger key, read back: `usage-alert#<rule>#<product>#<segment>#<period>#<state>#<recipient>`. */
export interface UsageAlertKey {
  key: string;
  ruleId: string;
  /** `<rule>#<product>#<segment>`, as seriesKey writes it. */
  series: string;
  period: string;
  /** `firing`, `firing-again` or `resolved`. */
  state: string;
  recipient: string;
  /** `<series>#<period>#<state>`: the change, whoever it went to. */
  change: string;
}

export function parseUsageAlertKey(key: string): UsageAlertKey | undefined {
  if (!key.startsWith(USAGE_ALERT_PREFIX)) return undefined;
  const parts = key.slice(USAGE_ALERT_PREFIX.length).split('#');
  if (parts.length < 6) return undefined;
  const [ruleId, product, segment, period, state] = parts as [string, string, string, string, string];
  const series = `${ruleId}#${product}#${segment}`;
  return {
    key,
    ruleId,
    series,
    period,
    state,
    recipient: parts.slice(5).join('#'),
    change: `${series}#${period}#${state}`,
  };
}

/** A change as `pulse usage-alerts backtest --json` lists it. */
export interface JudgedChange {
  ruleId: string;
  productId: string;
  segment: string | null;
  period: string;
  state: string;
  repeat?: boolean;
}

const changeOf = (c: JudgedChange) => `${seriesKey(c)}#${c.period}#${c.repeat === true ? 'firing-again' : c.state}`;

/** The epoch's usage alert records, parsed, with their ledger items. */
function epochRecords(items: readonly LedgerItem[], epoch: EpochUsageAlerts): (UsageAlertKey & { item: LedgerItem })[] {
  const rules = new Set(epoch.rules.map((r) => r.id));
  const out: (UsageAlertKey & { item: LedgerItem })[] = [];
  for (const item of items) {
    const k = parseUsageAlertKey(item.key);
    if (k && rules.has(k.ruleId)) out.push({ ...k, item });
  }
  return out;
}

/**
 * After a run that judged the usage alerts: no resolved claimed for a recipient before a firing of its series, and
 * each stored state agrees with the last change claimed for each of its rule's recipients up to its last judged
 * period. What the ledger keeps is found again by every later check: each violation is reported once.
 */
export function checkUsageAlertStates(
  state: ChaosState,
  items: readonly LedgerItem[],
  stored: ReadonlyMap<string, SeriesState>,
  epoch: EpochUsageAlerts,
): void {
  const records = epochRecords(items, epoch);
  const bySeriesAndRecipient = new Map<string, UsageAlertKey[]>();
  for (const r of records) {
    const id = `${r.series}\u0000${r.recipient}`;
    bySeriesAndRecipient.set(id, [...(bySeriesAndRecipient.get(id) ?? []), r]);
  }
  for (const list of bySeriesAndRecipient.values()) list.sort((a, b) => (a.period < b.period ? -1 : 1));
  for (const r of records) {
    if (r.state !== 'resolved') continue;
    const before = bySeriesAndRecipient.get(`${r.series}\u0000${r.recipient}`)!;
    if (!before.some((f) => f.state !== 'resolved' && f.period < r.period)) {
      state.violateOnce('usage alerts: no resolved before its firing', `${r.key}: no firing claimed before it`);
    }
  }
  const rules = new Map(epoch.rules.map((r) => [r.id, r]));
  for (const [series, s] of stored) {
    const rule = rules.get(series.slice(0, series.indexOf('#')));
    if (!rule) continue;
    const want = s.firing ? (s.lastTold ?? s.since) : undefined;
    for (const recipient of rule.recipients) {
      const told = (bySeriesAndRecipient.get(`${series}\u0000${recipient}`) ?? []).filter(
        (k) => k.period <= s.lastJudged,
      );
      const last = told.at(-1);
      const agrees = s.firing
        ? last !== undefined && last.state !== 'resolved' && last.period === want
        : last === undefined || last.state === 'resolved';
      if (!agrees) {
        state.violateOnce(
          'usage alerts: stored state told',
          `${series} stored ${s.firing ? `firing since ${want}` : 'quiet'} (judged to ${s.lastJudged}); ` +
            `${recipient}: last claimed ${last ? `${last.state} ${last.period}` : 'nothing'}`,
        );
      }
    }
  }
}

/**
 * The usage alert posts of the epoch's chat channels against the ledger: a post tells its first key (the key whose
 * event id is its `x-pulse-delivery`) and every key recorded done under that id, at least as many changes as the
 * ledger says, no key told by two posts, and a channel's posts together no more changes than it has keys.
 */
export function checkUsageAlertPosts(state: ChaosState, items: readonly LedgerItem[], epoch: EpochUsageAlerts): void {
  const records = epochRecords(items, epoch);
  for (const [channel, kind] of epoch.channels) {
    if (kind === 'webhook') continue;
    const keys = records.filter((r) => r.recipient === `channel:${channel}`);
    const firstOf = new Map(keys.map((k) => [channelEventId(k.key), k.key]));
    const inPost = new Map<string, string>();
    let total = 0;
    for (const p of state.channelPosts.values()) {
      if (p.broken || p.channel !== channel || p.usageAlerts === undefined) continue;
      const first = firstOf.get(p.id);
      // A post with no ledger record at all is the channel invariants' (every chat post has its record).
      if (first === undefined) continue;
      const told = new Set([first, ...keys.filter((k) => k.item.detail?.messageId === p.id).map((k) => k.key)]);
      total += p.usageAlerts;
      if (p.usageAlerts < told.size) {
        state.violateOnce(
          'usage alerts: one chat post per (change, channel)',
          `${p.file}: tells ${p.usageAlerts} changes, the ledger records ${told.size} under ${p.id}`,
        );
      }
      for (const key of told) {
        const other = inPost.get(key);
        if (other !== undefined && other !== p.file) {
          state.violateOnce('usage alerts: one chat post per (change, channel)', `${key}: in ${other} and ${p.file}`);
        }
        inPost.set(key, p.file);
      }
    }
    if (total > keys.length) {
      state.violateOnce(
        'usage alerts: one chat post per (change, channel)',
        `${channel}: its posts tell ${total} changes, the ledger has ${keys.length} keys for it`,
      );
    }
  }
}

/** What the closing checks counted, for the report. */
export interface UsageAlertTally {
  /** Changes the backtest found up to the series' last judged periods. */
  changes: number;
  /** Their deliveries (change × recipient) with a ledger record: done, unknown, or claimed by a killed run. */
  done: number;
  unknown: number;
  pending: number;
}

/**
 * After the epoch's fault-free closing run: every change judged (`judged`, the backtest's, up to each series' stored
 * last judged period) has a ledger record for every recipient of its rule, a webhook's done ones posted under the
 * change's subject and an email's done ones in the outbox; and every record names a judged change.
 */
export function checkUsageAlertsTold(
  state: ChaosState,
  items: readonly LedgerItem[],
  stored: ReadonlyMap<string, SeriesState>,
  judged: readonly JudgedChange[],
  epoch: EpochUsageAlerts,
): UsageAlertTally {
  const tally: UsageAlertTally = { changes: 0, done: 0, unknown: 0, pending: 0 };
  const byKey = new Map(items.map((i) => [i.key, i]));
  const rules = new Map(epoch.rules.map((r) => [r.id, r]));
  const emailed = new Set([...state.emails.values()].flatMap((e) => e.usageAlerts));
  const posted = [...state.channelPosts.values()].filter((p) => !p.broken && p.kind === 'webhook');
  const judgedChanges = new Set<string>();
  const missing = (key: string, why: string) =>
    state.violateOnce('usage alerts: every judged change told or unknown', `${key}: ${why}`);
  for (const c of judged) {
    const rule = rules.get(c.ruleId);
    if (!rule) continue;
    const series = seriesKey(c);
    const s = stored.get(series);
    if (!s) {
      missing(series, `judged ${c.state} ${c.period}, no state stored after the closing run`);
      continue;
    }
    if (c.period > s.lastJudged) continue;
    const change = changeOf(c);
    judgedChanges.add(change);
    tally.changes++;
    const [, , , period, stateName] = change.split('#') as [string, string, string, string, string];
    for (const recipient of rule.recipients) {
      const key = usageAlertLedgerKey(series, period, stateName, recipient);
      const record = byKey.get(key);
      if (!record) {
        missing(key, 'no ledger record');
        continue;
      }
      if (record.state === 'unknown') tally.unknown++;
      else if (record.state !== 'done') tally.pending++;
      else {
        tally.done++;
        if (record.detail?.confirmedByOperator === true) continue;
        const channel = recipient.startsWith('channel:') ? recipient.slice('channel:'.length) : undefined;
        if (channel === undefined && !emailed.has(key)) missing(key, 'recorded done, in no email of the outbox');
        const subject = usageAlertSubject(change);
        if (
          channel !== undefined &&
          epoch.channels.get(channel) === 'webhook' &&
          !posted.some((p) => p.channel === channel && p.subjects.includes(subject))
        ) {
          missing(key, `recorded done, no event with ${subject} posted`);
        }
      }
    }
  }
  for (const r of epochRecords(items, epoch)) {
    if (!judgedChanges.has(r.change)) {
      state.violateOnce(
        'usage alerts: nothing told that was not judged',
        `${r.key} (${r.item.state}): not a change the backtest finds up to the series' last judged period`,
      );
    }
  }
  return tally;
}
