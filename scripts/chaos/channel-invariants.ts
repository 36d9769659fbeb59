/**
 * The chaos invariants of the Slack, Teams and webhook deliveries, read from what the local channel sink wrote and
 * what the ledger says: the sink writes every post it took, answered or not, to
 * `<outbox>/channels/<channel id>/NNN-<kind>-<event>.json` = `{ kind, channel, receivedAt, headers, payload }`
 * (src/adapters/local/channel-sink.ts), so a post whose answer a `timeout` or `drop` fault kept back is there too:
 * exactly the case where Pulse cannot know and must not post a chat message again.
 *
 * - Slack and Teams are read by people, at most once: one post per delivery id (`x-pulse-delivery`, one per ledger
 *   key) and channel, and one per weekly subject's title (the digest's, the license report's) and channel, whatever
 *   ids Pulse computed; every post's delivery has its ledger record, never released and never done under another
 *   message (a chat message whose outcome is unknown is never posted again: the same two checks).
 * - Webhooks are read by programs, at least once under one id: every event subject (a digest and week, a report
 *   week, each license alert shown, each usage alert change) has one `webhook-id` across all its deliveries, each event's signature verifies,
 *   and every delivery the ledger records as done, or that an epoch's fault-free closing run made due, was posted.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { localSigningSecret } from '../../src/adapters/local/channel-sink.ts';
import type { LedgerItem } from '../../src/console/ledger-snapshot.ts';
import { DELIVERY_ID_HEADER } from '../../src/core/channels/deliver-to-channel.ts';
import { channelEventId } from '../../src/core/channels/webhook-event.ts';
import { archiveEventLedgerKey, LICENSE_FIRST_RUN_PREFIX } from '../../src/core/delivery/ledger-keys.ts';
import { unknownNoticeKey } from '../../src/core/delivery/unknown-delivery-notice.ts';
import { mailEventNoticeKey } from '../../src/mail-events/delivery-of.ts';
import type { ChannelKind } from '../../src/ports/channels.ts';
import { seriesKey } from '../../src/usage-alerts/series.ts';
import type { ChaosState, SeenPost } from './invariants.ts';

/** What an epoch's closing run made due in its channels: each week the ledger holds an email delivery of. */
export interface DueWeekly {
  /** The ledger key prefix up to the week: `digest#<digest id>#`, `license-report#`. */
  prefix: string;
  /** The email recipients whose keys (`<prefix><week>#<address>`) say the week is due. */
  emails: readonly string[];
  /** The channels the subject names: each due week needs `<prefix><week>#channel:<id>`. */
  channels: readonly string[];
  /** The webhook subject its event carries, given the week (`digest.sent#<id>#<week>`). */
  webhookSubject: (week: string) => string;
}

/** An epoch's channels: their kinds, and the weekly subjects due in them. */
export interface EpochChannels {
  channels: ReadonlyMap<string, ChannelKind>;
  weekly: readonly DueWeekly[];
}

/** What the closing checks counted, for the report. */
export interface ChannelLedgerTally {
  /** Chat ledger records left unknown (a license alert batch: one per alert). */
  chatUnknownRecords: number;
  /** Chat posts the channel took whose delivery the ledger holds as unknown: the hard case, never posted again. */
  chatUnknownPosted: number;
  /** Webhook deliveries still claimed by a killed run (its lease not over): delivered by a later run. */
  webhookPending: number;
}

const CHANNEL_KEY = /#channel:([a-z0-9][a-z0-9-]{0,62})$/;
/** The owner's notices: `<prefix><the delivery's key>` by email, and that `#channel:<id>` in each notice channel. */
const NOTICE_PREFIXES = [unknownNoticeKey(''), mailEventNoticeKey('')];

/**
 * The channel a ledger key delivers to; undefined for an email's key. An email notice about a channel's delivery
 * ends in `#channel:<id>` too (`notice-unknown#digest#…#W47#channel:ops`): what follows its prefix is a key the
 * ledger holds (the delivery it is about), where a notice's own channel post is that key and `#channel:<id>`.
 */
export function channelOfKey(key: string, keys: ReadonlySet<string>): string | undefined {
  const channel = CHANNEL_KEY.exec(key)?.[1];
  if (channel === undefined) return undefined;
  const about = NOTICE_PREFIXES.find((p) => key.startsWith(p));
  return about !== undefined && keys.has(key.slice(about.length)) ? undefined : channel;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : String(v));

/** What a webhook event is about: one subject per digest week, report week and license alert shown. */
export function webhookSubjects(payload: Obj): string[] {
  const data = isObj(payload.data) ? payload.data : {};
  switch (payload.type) {
    case 'digest.sent':
      return [`digest.sent#${str(data.digestId)}#${str(data.isoWeek)}`];
    case 'license.report':
      return [`license.report#${str(data.isoWeek)}`];
    case 'license.alerts':
      return (Array.isArray(data.shown) ? data.shown.filter(isObj) : []).map(
        (a) => `license.alert#${str(a.productId)}#${str(a.licenseKey)}#${str(a.stage)}#${str(a.expiryDate)}`,
      );
    case 'usage.alerts':
      // Every change the event tells (all of them, not only those a chat shows), named as its ledger key names it.
      return (Array.isArray(data.changes) ? data.changes.filter(isObj) : []).map((c) =>
        usageAlertSubject(
          `${seriesKey({ ruleId: str(c.ruleId), productId: str(c.productId), segment: c.segment === null ? null : str(c.segment) })}` +
            `#${str(c.period)}#${c.repeat === true ? 'firing-again' : str(c.state)}`,
        ),
      );
    default:
      // Notices: their subject is their ledger key, which the event does not carry; its id stands for it.
      return [];
  }
}

/** A usage alert change's webhook subject, from its ledger key's change part: `<series>#<period>#<state>`. */
export const usageAlertSubject = (change: string): string => `usage.alert#${change}`;

/** The summary a usage alerts chat post opens with: "3 usage alerts firing, 2 resolved: …", "1 usage alert resolved: …". */
const USAGE_SUMMARY = /^(\d+) usage alerts? (firing|resolved)(?:, (\d+) resolved)?: /;

/** How many changes a usage alerts chat post says it tells (its summary's counts); undefined for other posts. */
export function usageAlertCount(payload: unknown): number | undefined {
  if (typeof payload === 'string') {
    const m = USAGE_SUMMARY.exec(payload);
    return m ? Number(m[1]) + Number(m[3] ?? 0) : undefined;
  }
  const values = Array.isArray(payload) ? payload : isObj(payload) ? Object.values(payload) : [];
  for (const v of values) {
    const found = usageAlertCount(v);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The first string in the payload (depth first) that is a weekly subject's title: `<title> · <week…>`. */
export function weeklyTitle(payload: unknown, titles: ReadonlySet<string>): string | undefined {
  if (typeof payload === 'string') {
    for (const t of titles) if (payload.startsWith(`${t} · `)) return payload.trim();
    return undefined;
  }
  const values = Array.isArray(payload) ? payload : isObj(payload) ? Object.values(payload) : [];
  for (const v of values) {
    const found = weeklyTitle(v, titles);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Whether the event's `webhook-signature` holds the signature of its id, timestamp and body under the channel's secret. */
export function signatureVerifies(channel: string, headers: Record<string, string>, payload: unknown): boolean {
  const id = headers['webhook-id'];
  const timestamp = Number(headers['webhook-timestamp']);
  if (!id || !Number.isInteger(timestamp)) return false;
  // The sink parsed the body Pulse signed; JSON.stringify of that parse gives the same bytes back.
  const want = new Webhook(localSigningSecret(channel)).sign(id, new Date(timestamp * 1000), JSON.stringify(payload));
  return (headers['webhook-signature'] ?? '').split(' ').includes(want);
}

/** The delivered post files under `<outbox>/channels/`, as `<channel>/<name>`, oldest first per channel. */
async function postFiles(channelsDir: string): Promise<string[]> {
  if (!existsSync(channelsDir)) return [];
  const out: string[] = [];
  for (const dir of await readdir(channelsDir, { withFileTypes: true })) {
    if (!dir.isDirectory()) continue;
    for (const name of (await readdir(join(channelsDir, dir.name))).sort()) {
      if (name.endsWith('.json')) out.push(`${dir.name}/${name}`);
    }
  }
  return out;
}

/** One post file as a SeenPost; a string saying what is wrong when it cannot be one. */
async function readPost(channelsDir: string, file: string, titles: ReadonlySet<string>): Promise<SeenPost | string> {
  let record: unknown;
  try {
    record = JSON.parse(await readFile(join(channelsDir, file), 'utf8'));
  } catch (e) {
    return `not JSON (${(e as Error).message})`;
  }
  if (!isObj(record) || !isObj(record.headers)) return 'not a post record';
  const channel = file.slice(0, file.indexOf('/'));
  const kind = record.kind as ChannelKind;
  const headers = record.headers as Record<string, string>;
  const payload = isObj(record.payload) ? record.payload : {};
  if (kind === 'webhook') {
    const id = headers['webhook-id'] ?? '';
    const signed = payload.id === id && signatureVerifies(channel, headers, payload);
    return { file, channel, kind, id, type: str(payload.type), subjects: webhookSubjects(payload), signed };
  }
  const weekly = weeklyTitle(payload, titles);
  const usageAlerts = usageAlertCount(payload);
  return {
    file,
    channel,
    kind,
    id: headers[DELIVERY_ID_HEADER] ?? '',
    subjects: [],
    ...(weekly !== undefined ? { weekly } : {}),
    ...(usageAlerts !== undefined ? { usageAlerts } : {}),
  };
}

/**
 * Reads the channel posts the sink wrote since the last call and checks, against every post seen before: one chat
 * post per (delivery id, channel) and per (weekly title, channel); each webhook event's id is its body's, its
 * signature verifies, each subject has one id and each id one type.
 */
export async function checkChannelPosts(state: ChaosState, outboxDir: string): Promise<void> {
  const channelsDir = join(outboxDir, 'channels');
  const chat = new Map<string, string>();
  const weekly = new Map<string, string>();
  const subjects = new Map<string, SeenPost>();
  const types = new Map<string, SeenPost>();
  const index = (p: SeenPost, check: boolean) => {
    if (p.broken) return;
    const once = (map: Map<string, string>, key: string, what: string) => {
      const other = map.get(key);
      if (check && other !== undefined) {
        state.violate('channel: at most one chat post per (subject, channel)', `${what}: ${other} and ${p.file}`);
      }
      map.set(key, p.file);
    };
    if (p.kind !== 'webhook') {
      once(chat, `${p.channel}\u0000${p.id}`, `${p.channel}: delivery ${p.id} posted twice`);
      if (p.weekly !== undefined) once(weekly, `${p.channel}\u0000${p.weekly}`, `${p.channel}: "${p.weekly}" twice`);
      return;
    }
    for (const s of p.subjects) {
      const other = subjects.get(`${p.channel}\u0000${s}`);
      if (check && other && other.id !== p.id) {
        state.violate(
          'channel: one webhook id per event',
          `${p.channel}: ${s} under ${other.id} (${other.file}) and ${p.id} (${p.file})`,
        );
      }
      if (!other) subjects.set(`${p.channel}\u0000${s}`, p);
    }
    const other = types.get(`${p.channel}\u0000${p.id}`);
    if (check && other && other.type !== p.type) {
      state.violate(
        'channel: one webhook id per event',
        `${p.channel}: ${p.id} is ${other.type} (${other.file}) and ${p.type} (${p.file})`,
      );
    }
    if (!other) types.set(`${p.channel}\u0000${p.id}`, p);
  };
  for (const p of state.channelPosts.values()) index(p, false);
  for (const file of await postFiles(channelsDir)) {
    if (state.channelPosts.has(file)) continue;
    const post = await readPost(channelsDir, file, state.weeklyTitles);
    if (typeof post === 'string') {
      state.violate('channel: every chat post has its ledger record', `${file}: ${post}`);
      state.channelPosts.set(file, { file, channel: '', kind: 'slack', id: '', subjects: [], broken: true });
      continue;
    }
    if (post.signed === false) {
      state.violate('channel: webhook signature verified', `${file}: webhook-id ${post.id || '(none)'}`);
    } else if (post.kind !== 'webhook' && post.id === '') {
      state.violate('channel: every chat post has its ledger record', `${file}: no ${DELIVERY_ID_HEADER} header`);
    }
    index(post, true);
    state.channelPosts.set(file, post);
  }
}

/**
 * At an epoch's end, after its fault-free closing run, against the ledger (`items`, every record), for the epoch's
 * channels only (each epoch has its own): every chat post's delivery has its record (done under this very post,
 * unknown, or still claimed by a killed run); every done delivery's message id was posted; no webhook delivery is left
 * unknown; and every week due by email has its delivery in each channel the subject names (a webhook's posted).
 */
export function checkChannelLedger(
  state: ChaosState,
  items: readonly LedgerItem[],
  epoch: EpochChannels,
): ChannelLedgerTally {
  const tally: ChannelLedgerTally = { chatUnknownRecords: 0, chatUnknownPosted: 0, webhookPending: 0 };
  const records = new Map<string, LedgerItem>();
  const keyOfId = new Map<string, string>();
  const keys = new Set(items.map((i) => i.key));
  for (const item of items) {
    const channel = channelOfKey(item.key, keys);
    // A first run's record of a channel (the license alerts' summary was sent) is no delivery of its own.
    if (channel === undefined || !epoch.channels.has(channel) || item.key.startsWith(LICENSE_FIRST_RUN_PREFIX))
      continue;
    records.set(item.key, item);
    keyOfId.set(`${channel}\u0000${channelEventId(item.key)}`, item.key);
  }
  const posts = [...state.channelPosts.values()].filter((p) => !p.broken && epoch.channels.has(p.channel));
  const posted = new Set(posts.map((p) => `${p.channel}\u0000${p.id}`));

  for (const p of posts) {
    if (p.kind === 'webhook') continue;
    const key = keyOfId.get(`${p.channel}\u0000${p.id}`);
    const record = key === undefined ? undefined : records.get(key);
    if (key === undefined || record === undefined) {
      state.violate(
        'channel: every chat post has its ledger record',
        `${p.file}: no ledger record of delivery ${p.id} (released after the channel took it?)`,
      );
    } else if (record.state === 'done' && record.detail?.messageId !== p.id) {
      state.violate(
        'channel: at most one chat post per (subject, channel)',
        `${p.file}: ${key} posted as ${p.id}, then done as ${str(record.detail?.messageId)}`,
      );
    } else if (record.state === 'unknown') tally.chatUnknownPosted++;
  }

  for (const [key, r] of records) {
    const channel = channelOfKey(key, keys)!;
    const kind = epoch.channels.get(channel)!;
    if (r.state === 'done') {
      const id = r.detail?.messageId;
      if (r.detail?.confirmedByOperator !== true && !posted.has(`${channel}\u0000${str(id)}`)) {
        state.violate('channel: every done delivery posted', `${key}: done as ${str(id)}, no such post in ${channel}`);
      }
    } else if (kind === 'webhook') {
      if (r.state === 'unknown') {
        state.violate('channel: every due webhook event delivered', `${key}: left unknown (${r.reason ?? ''})`);
      } else tally.webhookPending++;
    } else if (r.state === 'unknown') tally.chatUnknownRecords++;
  }

  for (const due of epoch.weekly) {
    const weeks = new Set<string>();
    for (const item of items) {
      if (!item.key.startsWith(due.prefix)) continue;
      const [week, ...address] = item.key.slice(due.prefix.length).split('#');
      if (week && due.emails.includes(address.join('#'))) weeks.add(week);
    }
    for (const week of weeks) {
      for (const channel of due.channels) {
        const key = `${due.prefix}${week}#channel:${channel}`;
        const r = records.get(key);
        if (epoch.channels.get(channel) !== 'webhook') {
          if (!r) state.violate('channel: every due chat post sent or unknown', `${key}: no delivery`);
          continue;
        }
        const subject = due.webhookSubject(week);
        const delivered = posts.some((p) => p.channel === channel && p.subjects.includes(subject));
        if (!r || (r.state === 'done' && !delivered)) {
          state.violate(
            'channel: every due webhook event delivered',
            `${key}: ${r ? `done, no ${subject} event posted` : 'no delivery'}`,
          );
        }
      }
    }
  }
  return tally;
}

/**
 * At an epoch's end, after its fault-free closing run (which tells the runs before it that a channel missed): every
 * archive run whose manifest names channels was told each of them — its event posted to each webhook under the id
 * of its ledger key, and each chat post sent or unknown (a ledger record). Returns the runs checked.
 */
export function checkArchiveEvents(
  state: ChaosState,
  manifests: readonly { runId: string; channels: readonly string[] }[],
  items: readonly LedgerItem[],
  epoch: EpochChannels,
): number {
  const keys = new Set(items.map((i) => i.key));
  const posted = new Set(
    [...state.channelPosts.values()].filter((p) => !p.broken).map((p) => `${p.channel}\u0000${p.id}`),
  );
  for (const { runId, channels } of manifests) {
    for (const channel of channels) {
      const key = archiveEventLedgerKey(runId, `channel:${channel}`);
      const kind = epoch.channels.get(channel);
      if (kind === 'webhook' ? !posted.has(`${channel}\u0000${channelEventId(key)}`) : !keys.has(key))
        state.violate(
          'channel: every archive run told',
          `${key}: ${kind === 'webhook' ? 'no event posted' : 'no delivery'}`,
        );
    }
  }
  return manifests.length;
}
