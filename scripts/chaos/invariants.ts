/**
 * The chaos invariants, read from the work directory while no run holds it: the local S3 (s3rver's files under
 * `<workDir>/s3/<bucket>/`), the outbox's `.eml` files, the channel posts (channel-invariants.ts), and every file and
 * output for the secret. State kept across runs (what each object looked like, which emails and posts were seen) is
 * what "never overwritten" and "never twice" are checked against.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import { simpleParser } from 'mailparser';
import { parseCsv } from '../../emulator/files/csv.ts';
import { findBrokenS3rverEntries } from '../../src/adapters/local/s3rver-recovery.ts';
import { stageTitle } from '../../src/licenses/alerts/stage.ts';
import type { ChannelKind } from '../../src/ports/channels.ts';
import { USAGE_ALERT_KEYS_HEADER } from '../../src/usage-alerts/tell-changes.ts';

export const INVARIANTS = [
  'archive: object matches the service bytes',
  'archive: file archived once',
  'archive: checksum file right',
  'archive: object never overwritten',
  'archive: manifests chain',
  'archive: every listed file archived',
  'email: one digest per (digest, week, recipient)',
  'email: one alert per (key, stage, recipient)',
  'email: every due digest sent or reported',
  'email: no missed alert',
  'channel: at most one chat post per (subject, channel)',
  'channel: every chat post has its ledger record',
  'channel: one webhook id per event',
  'channel: webhook signature verified',
  'channel: every done delivery posted',
  'channel: every due webhook event delivered',
  'channel: every due chat post sent or unknown',
  'channel: every archive run told',
  'usage alerts: one email per (change, recipient)',
  'usage alerts: one chat post per (change, channel)',
  'usage alerts: no resolved before its firing',
  'usage alerts: stored state told',
  'usage alerts: every judged change told or unknown',
  'usage alerts: nothing told that was not judged',
  'no crash',
  'no secret in any output',
] as const;
export type Invariant = (typeof INVARIANTS)[number];

export interface Violation {
  run: number;
  invariant: Invariant;
  detail: string;
}

const OBJECT = '._S3rver_object';
const METADATA = '._S3rver_metadata.json';
const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');

interface SeenObject {
  sha: string;
  mtimeMs: number;
  size: number;
}

export interface SeenEmail {
  file: string;
  to: string;
  digest?: string;
  week?: string;
  notice?: string;
  /** License alerts: `<recipient>#<product name>#<key>#<stage title>`. */
  alerts: string[];
  /** Usage alerts: the ledger key of each change the email tells (its X-Pulse-Usage-Alert-Keys header). */
  usageAlerts: string[];
}

/** One channel post file as the channel invariants read it (channel-invariants.ts); the state keeps them by file. */
export interface SeenPost {
  /** `<channel id>/<file name>` under the outbox's `channels/`. */
  file: string;
  channel: string;
  kind: ChannelKind;
  /** The delivery's id: `x-pulse-delivery` (Slack, Teams) or `webhook-id`. */
  id: string;
  /** Webhooks: the event type. */
  type?: string;
  /** Webhooks: what the event is about (`digest.sent#<digest id>#<week>`, one per license alert shown, …). */
  subjects: string[];
  /** Chat: the title of a weekly subject (`<digest title> · Week 47 · …`), when the post is one. */
  weekly?: string;
  /** Webhooks: the body's id is the `webhook-id` and the signature verifies. */
  signed?: boolean;
  /** Chat: how many usage alert changes the post says it tells (its summary), when it is a usage alerts post. */
  usageAlerts?: number;
  /** The file is no post record (not JSON, no headers): reported once, then left out. */
  broken?: true;
}

export class ChaosState {
  readonly violations: Violation[] = [];
  readonly objects = new Map<string, SeenObject>();
  readonly emails = new Map<string, SeenEmail>();
  /** Files already scanned for the secret, by `mtime:size`. */
  readonly scanned = new Map<string, string>();
  /** `<digestId>#<recipient>` a run reported unknown or sent-unconfirmed. */
  readonly digestsReported = new Set<string>();
  /** Channel posts seen, by `<channel>/<file>` under the outbox's `channels/`. */
  readonly channelPosts = new Map<string, SeenPost>();
  /** The titles of weekly subjects (digests, license reports): one chat post per title, week and channel. */
  readonly weeklyTitles = new Set<string>();
  /** Violations of checks that read the whole ledger after many runs: each reported once (`violateOnce`). */
  readonly reported = new Set<string>();
  run = 0;

  violate(invariant: Invariant, detail: string): void {
    this.violations.push({ run: this.run, invariant, detail });
  }

  /** A violation that a later check of the same ledger would find again: the first run that shows it counts. */
  violateOnce(invariant: Invariant, detail: string): void {
    const id = `${invariant}\u0000${detail}`;
    if (this.reported.has(id)) return;
    this.reported.add(id);
    this.violate(invariant, detail);
  }
}

async function filesUnder(dir: string): Promise<string[]> {
  if (!existsSync(dir)) return [];
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

/**
 * Committed objects under `prefix` of the bucket: key → path of its bytes. Not those a killed run left half-written
 * (an empty metadata file, say): the next start moves them aside (s3rver-recovery.ts, the same test), as in S3, where
 * a PUT that never returned committed nothing.
 */
async function committedObjects(bucketDir: string, prefix: string): Promise<Map<string, string>> {
  const bucket = basename(bucketDir);
  const broken = new Set(findBrokenS3rverEntries(dirname(bucketDir)).map((b) => b.entry));
  const out = new Map<string, string>();
  for (const f of await filesUnder(join(bucketDir, prefix))) {
    if (!f.endsWith(OBJECT) || f.includes('._S3rver_uploads')) continue;
    const base = f.slice(0, -OBJECT.length);
    const key = relative(bucketDir, base);
    if (existsSync(base + METADATA) && !broken.has(`${bucket}/${key}`)) out.set(key, f);
  }
  return out;
}

/**
 * The archive under one epoch's prefix: every export object has the SHA-256 of the service's bytes (`expected`, by
 * file name), each file name is archived under one key, its `.sha256` file (when there) is right, no object seen
 * before changed, and the manifests chain. Returns the archived export file names.
 */
export async function checkArchive(
  state: ChaosState,
  bucketDir: string,
  prefix: string,
  expected: Map<string, string>,
): Promise<Set<string>> {
  const objects = await committedObjects(bucketDir, prefix);
  const keysByName = new Map<string, string[]>();
  for (const [key, path] of objects) {
    const st = await stat(path);
    const seen = state.objects.get(key);
    let sha: string;
    if (seen && seen.mtimeMs === st.mtimeMs && seen.size === st.size) sha = seen.sha;
    else sha = sha256(await readFile(path));
    if (!key.endsWith('.sha256')) {
      if (seen && (seen.sha !== sha || seen.mtimeMs !== st.mtimeMs)) {
        state.violate('archive: object never overwritten', `${key} changed (sha ${seen.sha} → ${sha})`);
      }
      state.objects.set(key, { sha, mtimeMs: st.mtimeMs, size: st.size });
    }
    const name = basename(key);
    if (name.endsWith('.zip')) {
      keysByName.set(name, [...(keysByName.get(name) ?? []), key]);
      const want = expected.get(name);
      if (want === undefined) state.violate('archive: object matches the service bytes', `${key}: not a listed file`);
      else if (want !== sha) state.violate('archive: object matches the service bytes', `${key}: ${sha} ≠ ${want}`);
    } else if (name.endsWith('.zip.sha256')) {
      const file = name.slice(0, -'.sha256'.length);
      const text = await readFile(path, 'utf8');
      const want = expected.get(file);
      if (want !== undefined && text !== `${want}  ${file}\n`) {
        state.violate('archive: checksum file right', `${key}: ${JSON.stringify(text.slice(0, 100))}`);
      }
    } else if (/_clients_.*\.ndjson\.gz$/.test(name)) {
      const metadata = JSON.parse(await readFile(path.slice(0, -OBJECT.length) + METADATA, 'utf8'));
      if (metadata['x-amz-meta-sha256'] !== sha) {
        state.violate('archive: object matches the service bytes', `${key}: metadata sha256 ≠ the bytes'`);
      }
    }
  }
  // Disappeared objects (s3rver-recovery only moves half-written entries, which were never committed).
  for (const key of state.objects.keys()) {
    if (key.startsWith(`${prefix}/`) && !objects.has(key)) {
      state.violate('archive: object never overwritten', `${key} disappeared`);
      state.objects.delete(key);
    }
  }
  for (const [name, keys] of keysByName) {
    if (keys.length > 1) state.violate('archive: file archived once', `${name} under ${keys.join(', ')}`);
  }
  await checkManifestChain(state, objects, `${prefix}/manifests/`);
  return new Set(keysByName.keys());
}

/** The manifests under an epoch's prefix that name channels (`archive.channels` when their run finished). */
export async function manifestsWithChannels(
  bucketDir: string,
  prefix: string,
): Promise<{ key: string; runId: string; channels: string[] }[]> {
  const objects = await committedObjects(bucketDir, prefix);
  const out: { key: string; runId: string; channels: string[] }[] = [];
  for (const [key, path] of objects) {
    if (!key.startsWith(`${prefix}/manifests/`) || !key.endsWith('.json')) continue;
    try {
      const m = JSON.parse(await readFile(path, 'utf8')) as { runId?: string; channels?: string[] };
      if (m.runId && m.channels?.length) out.push({ key, runId: m.runId, channels: m.channels });
    } catch {
      // Not JSON: the chain check reports it.
    }
  }
  return out.sort((a, b) => (a.key < b.key ? -1 : 1));
}

async function checkManifestChain(state: ChaosState, objects: Map<string, string>, folder: string): Promise<void> {
  const keys = [...objects.keys()].filter((k) => k.startsWith(folder) && k.endsWith('.json')).sort();
  let previous: { key: string; sha256: string } | null = null;
  for (const key of keys) {
    const bytes = await readFile(objects.get(key)!);
    let link: unknown;
    try {
      link = JSON.parse(bytes.toString('utf8')).previous;
    } catch {
      state.violate('archive: manifests chain', `${key}: not JSON`);
      return;
    }
    const l = link as { key?: string; sha256?: string } | null;
    const ok = previous === null ? l === null : l?.key === previous.key && l?.sha256 === previous.sha256;
    if (!ok) {
      state.violate(
        'archive: manifests chain',
        `${key}: previous ${JSON.stringify(l)}, expected ${JSON.stringify(previous)}`,
      );
    }
    previous = { key, sha256: sha256(bytes) };
  }
}

/** Header `name` of a raw message's header block (unfolded), if present. */
function header(head: string, name: string): string | undefined {
  const m = new RegExp(`^${name}:[ \\t]*(.*(?:\\r?\\n[ \\t].*)*)`, 'im').exec(head);
  return m?.[1]?.replace(/\r?\n[ \t]+/g, ' ').trim();
}

/** The alerts of one license alerts email: its CSV attachment, or the one alert its text shows. */
async function alertsOf(raw: Buffer, to: string): Promise<string[]> {
  const parsed = await simpleParser(raw);
  const csv = parsed.attachments.find((a) => a.filename?.endsWith('.csv'));
  if (csv) {
    const [head, ...rows] = parseCsv(csv.content.toString('utf8'));
    const keyAt = head?.indexOf('licenseKey') ?? -1;
    const stageAt = head?.indexOf('stage') ?? -1;
    const productAt = head?.indexOf('productName') ?? -1;
    return rows
      .filter((r) => r.length > 1)
      .map((r) => `${to}#${r[productAt]}#${r[keyAt]}#${stageTitle(r[stageAt] as Parameters<typeof stageTitle>[0])}`);
  }
  // One alert (maxKeysInEmail 1 attaches the CSV whenever there are more): `== <stage title> (1) ==` then `* <key>`.
  const text = parsed.text ?? '';
  const title = /^== (.+) \(1\) ==$/m.exec(text)?.[1];
  const shown = /^\* (.+)\r?\n\s+(.+?) · /m.exec(text.slice(text.indexOf(`== ${title}`)));
  return title && shown
    ? [`${to}#${shown[2]}#${shown[1]}#${title}`]
    : [`${to}#?#?#unparsed ${basename(parsed.messageId ?? '')}`];
}

/**
 * Reads the outbox's new `.eml` files and checks: one digest per (digest, week, recipient), one license alert per
 * key, one usage alert per change and recipient (the ledger keys its X-Pulse-Usage-Alert-Keys header lists, each
 * ending in the address it went to).
 */
export async function checkEmails(state: ChaosState, outboxDir: string): Promise<void> {
  if (!existsSync(outboxDir)) return;
  const files = (await readdir(outboxDir)).filter((f) => f.endsWith('.eml')).sort();
  const digests = new Map<string, string>();
  const alerts = new Map<string, string>();
  const changes = new Map<string, string>();
  for (const [, e] of state.emails) {
    if (e.digest && !e.notice) digests.set(`${e.digest}#${e.week}#${e.to}`, e.file);
    for (const a of e.alerts) alerts.set(a, e.file);
    for (const k of e.usageAlerts) changes.set(k, e.file);
  }
  for (const file of files) {
    if (state.emails.has(file)) continue;
    const raw = await readFile(join(outboxDir, file));
    const text = raw.toString('utf8');
    const head = text.slice(0, Math.max(0, text.search(/\r?\n\r?\n/)));
    const toHeader = header(head, 'To') ?? '?';
    const to = (/<([^>]+)>/.exec(toHeader)?.[1] ?? toHeader).toLowerCase();
    const digest = header(head, 'X-Pulse-Digest');
    const week = header(head, 'X-Pulse-Week');
    const notice = header(head, 'X-Pulse-Notice') ?? header(head, 'X-Pulse-License-Alerts-Notice');
    const isAlerts = header(head, 'X-Pulse-License-Alerts') !== undefined && !notice;
    const isUsageAlerts = header(head, 'X-Pulse-Usage-Alerts') !== undefined && !notice;
    const usageAlerts = (header(head, USAGE_ALERT_KEYS_HEADER) ?? '').split(/\s+/).filter((k) => k !== '');
    const email: SeenEmail = {
      file,
      to,
      ...(digest ? { digest } : {}),
      ...(week ? { week } : {}),
      ...(notice ? { notice } : {}),
      alerts: isAlerts ? await alertsOf(raw, to) : [],
      usageAlerts: isUsageAlerts ? usageAlerts : [],
    };
    state.emails.set(file, email);
    if (digest && week && !notice) {
      const id = `${digest}#${week}#${to}`;
      const other = digests.get(id);
      if (other) state.violate('email: one digest per (digest, week, recipient)', `${id}: ${other} and ${file}`);
      digests.set(id, file);
    }
    for (const a of email.alerts) {
      const other = alerts.get(a);
      if (other) state.violate('email: one alert per (key, stage, recipient)', `${a}: ${other} and ${file}`);
      alerts.set(a, file);
    }
    if (isUsageAlerts && usageAlerts.length === 0) {
      state.violate('usage alerts: one email per (change, recipient)', `${file}: no ${USAGE_ALERT_KEYS_HEADER} header`);
    }
    for (const k of email.usageAlerts) {
      const other = changes.get(k);
      if (other) state.violate('usage alerts: one email per (change, recipient)', `${k}: ${other} and ${file}`);
      if (!k.endsWith(`#${to}`)) state.violate('usage alerts: one email per (change, recipient)', `${k} sent to ${to}`);
      changes.set(k, file);
    }
  }
}

/** Changed files of the work directory, and the given outputs, must not contain the secret. */
export async function checkSecret(
  state: ChaosState,
  secret: string,
  workDir: string,
  outputs: string[],
): Promise<void> {
  for (const o of outputs) if (o.includes(secret)) state.violate('no secret in any output', 'a run printed it');
  const needle = Buffer.from(secret);
  for (const f of await filesUnder(workDir)) {
    const st = await stat(f).catch(() => undefined);
    if (!st) continue;
    const id = `${st.mtimeMs}:${st.size}`;
    if (state.scanned.get(f) === id) continue;
    state.scanned.set(f, id);
    const bytes = await readFile(f).catch(() => undefined);
    if (bytes?.includes(needle)) state.violate('no secret in any output', relative(workDir, f));
  }
}
