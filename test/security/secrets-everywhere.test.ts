/**
 * No secret anywhere a job leaves a trace (issue 14). Over the real local peers (emulator, dynalite, s3rver, SMTP
 * sink), with a distinctive password: a digest send, a held digest (and its owner's notice), a preview, an archive
 * run, license alerts (with a CSV attachment) and the license report. Then every log line, every JobResult (errors,
 * outputs, counts, as JSON and as util.inspect), every file under the work dir (outbox, preview folder, s3rver's
 * objects, dynalite's tables; gzip files also decompressed), every object in the archive bucket and every email in
 * the sink is searched for the password (raw, JSON-escaped, URL-encoded, base64 alone and as `user:password`), and
 * for every session token and CSRF value the emulator issued (read at the source: the emulator's token generator).
 */

import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionStore } from '../../emulator/auth/sessions.ts';
import { ReportFolder } from '../../src/adapters/local/report-folder.ts';
import { EmlFileWriter } from '../../src/adapters/mail/eml-file-writer.ts';
import { reportingClientFor } from '../../src/app/service-client.ts';
import { runArchive } from '../../src/archive/run-archive.ts';
import { Licenses } from '../../src/config/licenses-schema.ts';
import { previewDigest } from '../../src/digest/preview.ts';
import { runDigest } from '../../src/digest/run-digest.ts';
import { runLicenseAlerts } from '../../src/licenses/alerts/run-license-alerts.ts';
import { runLicenseReport } from '../../src/licenses/report/run-license-report.ts';
import { fixedClock } from '../../src/ports/clock.ts';
import { DIGEST_TODAY, type LocalDigest, startLocalDigest } from '../helpers/local-digest.ts';
import { filesUnder, leaksIn, leaksInFiles } from '../helpers/secret-search.ts';

const CORE = randomUUID();
/** Distinctive, and with characters that every encoding changes: JSON (`"`, `\`), URLs (`+/=&`), non-ASCII. */
const PASSWORD = `Pw-${CORE}-"\\+/=&ä`;
const [DESKTOP, SERVER, RAW] = ['12345678901', '9876543210', '40000000017'] as const;
const MONDAY = fixedClock(`${DIGEST_TODAY}T10:00:00Z`);
/** A week before the last: nothing recorded for it, so the refused run does try to sign in. */
const LAST_WEEK_BEFORE = '2026-W46';
const to = (...names: string[]) => names.map((n) => ({ address: `${n}@example.com` }));

/** Every token the emulator hands out (session tokens and CSRF values both come from SessionStore.token). */
const issued: string[] = [];
const originalToken = SessionStore.token;
let env: LocalDigest;
/** Everything the jobs returned, as a terminal, a log or a JSON consumer would see it. */
const results: string[] = [];
const record = (r: unknown) => {
  results.push(JSON.stringify(r), inspect(r, { depth: Number.POSITIVE_INFINITY, showHidden: true }));
  return r;
};

beforeAll(async () => {
  SessionStore.token = () => {
    const t = originalToken();
    issued.push(t);
    return t;
  };
  env = await startLocalDigest({
    password: PASSWORD,
    clients: 120,
    products: [
      { id: DESKTOP, name: 'Desktop' },
      { id: SERVER, name: 'Server' },
      { id: RAW, name: 'Raw' },
    ],
    digests: [
      { id: 'weekly', productIds: [DESKTOP, SERVER], recipients: to('ann', 'bob'), owner: 'owner@example.com' },
      { id: 'guarded', productIds: [SERVER], recipients: to('g1'), owner: 'guard-owner@example.com' },
      { id: 'preview', productIds: [DESKTOP], recipients: to('pat'), owner: 'owner@example.com' },
    ],
  });
  const { config } = env;
  const emu = env.peers.emulator;
  expect(emu.credentials.password).toBe(PASSWORD);

  const sent = record(await runDigest(config, env.ports(MONDAY), { digestIds: ['weekly'] }));
  expect(sent).toMatchObject({ ok: true, counts: { sent: 2 } });
  emu.faults.set({ rules: [{ operations: ['usageDistribution'], serverErrorRate: 1 }] });
  try {
    const held = record(await runDigest(config, env.ports(MONDAY), { digestIds: ['guarded'] }));
    expect(held).toMatchObject({ ok: false, counts: { held: 1 } });
  } finally {
    emu.faults.set({ rules: [] });
  }
  // Refused credentials (a password one character off) and a license run whose calls fail: error paths too.
  const refused = env.ports(MONDAY);
  refused.client = reportingClientFor(
    config.service,
    () => ({ userName: emu.credentials.userName, password: `${PASSWORD}x` }),
    refused.logger,
  );
  const wrong = record(await runDigest(config, refused, { digestIds: ['weekly'], week: LAST_WEEK_BEFORE }));
  expect(wrong).toMatchObject({ ok: false });
  expect(JSON.stringify(wrong)).toMatch(/AuthenticationError|Unauthorized|credentials|401/i);
  const previewDir = join(env.peers.workDir, 'preview');
  record(
    await previewDigest(config, env.ports(MONDAY), {
      digestIds: ['preview'],
      writer: new EmlFileWriter(previewDir, (m) => `${m.headers?.['X-Pulse-Digest']}`),
      pages: new ReportFolder(previewDir),
    }),
  );
  const archivePorts = { ...env.ports(MONDAY), archive: env.peers.archive };
  const archived = record(await runArchive({ ...config, products: [{ id: DESKTOP }, { id: RAW }] }, archivePorts));
  expect(archived).toMatchObject({ ok: true, counts: { failed: 0 } });
  expect((archived as { counts: { archived: number } }).counts.archived).toBeGreaterThan(100);
  const licenses = (extra: Record<string, unknown>) => ({
    ...config,
    licenses: Licenses.parse({ owner: { address: 'licenses@example.com', timeZone: 'UTC' }, ...extra }),
  });
  emu.faults.set({ rules: [{ operations: ['searchLicenseKeys'], serverErrorRate: 1 }] });
  try {
    const failing = record(await runLicenseAlerts(licenses({}), env.ports(MONDAY)));
    expect(failing).toMatchObject({ ok: false });
  } finally {
    emu.faults.set({ rules: [] });
  }
  const alerts = record(await runLicenseAlerts(licenses({ maxKeysInEmail: 1 }), env.ports(MONDAY)));
  expect(alerts).toMatchObject({ ok: true });
  const report = record(
    await runLicenseReport(
      licenses({ productIds: [DESKTOP, SERVER], report: { recipients: to('ops') } }),
      env.ports(MONDAY),
    ),
  );
  expect(report).toMatchObject({ ok: true });
}, 120_000);

afterAll(async () => {
  SessionStore.token = originalToken;
  await env?.close();
});

/** The password in every form it could travel in, then every token the emulator issued. */
function secrets(): string[] {
  const user = env.peers.emulator.credentials.userName;
  const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
  const forms = [
    CORE, // the distinctive part: found in any form that keeps ASCII as is (JSON, quoted-printable, headers)
    PASSWORD,
    JSON.stringify(PASSWORD).slice(1, -1),
    encodeURIComponent(PASSWORD),
    b64(PASSWORD),
    Buffer.from(PASSWORD, 'utf8').toString('base64url'),
    b64(`${user}:${PASSWORD}`),
    b64(CORE).slice(0, 40),
  ];
  return [...forms, ...issued];
}

describe('after a digest send, a held digest, a preview, an archive run, license alerts and the license report', () => {
  it('the runs did their work and the emulator issued sessions and CSRF values', async () => {
    expect(issued.length).toBeGreaterThanOrEqual(10);
    expect(env.logLines.length).toBeGreaterThan(10);
    expect((await env.mails()).length).toBeGreaterThanOrEqual(5);
    expect(results.length).toBe(16);
  });

  it('the search finds a secret in each form it looks for (a planted canary)', () => {
    for (const s of secrets()) {
      const found: string[] = [];
      leaksIn(
        secrets(),
        'canary',
        Buffer.concat([Buffer.from('prefix '), Buffer.from(s), Buffer.from(' suffix')]),
        found,
      );
      expect(found.length).toBeGreaterThan(0);
    }
  });

  it('no log line holds the password, a session token or a CSRF value', () => {
    const found: string[] = [];
    for (const [i, line] of env.logLines.entries()) leaksIn(secrets(), `log line ${i}`, line, found);
    expect(found).toEqual([]);
  });

  it('no JobResult (errors, outputs, counts) holds one', () => {
    const found: string[] = [];
    for (const [i, r] of results.entries()) leaksIn(secrets(), `result ${i}`, r, found);
    expect(found).toEqual([]);
  });

  it('no email in the sink holds one', async () => {
    const found: string[] = [];
    for (const m of await env.mails()) {
      leaksIn(secrets(), `mail to ${m.to}`, m.raw, found);
      leaksIn(secrets(), `mail to ${m.to} (decoded)`, `${m.parsed.text}${m.parsed.html}`, found);
      for (const a of m.parsed.attachments) leaksIn(secrets(), `attachment ${a.filename}`, a.content, found);
    }
    expect(found).toEqual([]);
  });

  it('no object in the archive bucket holds one (every object listed and read, gzip decompressed)', async () => {
    const found: string[] = [];
    const keys: string[] = [];
    for await (const o of env.peers.archive.list('')) keys.push(o.key);
    expect(keys.some((k) => k.startsWith('pulse/digests/'))).toBe(true);
    expect(keys.some((k) => k.includes('/manifests/'))).toBe(true);
    for (const key of keys) {
      const bytes = Buffer.from((await env.peers.archive.get(key))!);
      leaksIn(secrets(), key, bytes, found);
      if (bytes[0] === 0x1f && bytes[1] === 0x8b) leaksIn(secrets(), `${key} (gunzipped)`, gunzipSync(bytes), found);
    }
    expect(found).toEqual([]);
  });

  it('no file under the work dir (outbox, preview folder, s3rver, dynalite, emulator data) holds one', async () => {
    const found: string[] = [];
    const files = await filesUnder(env.peers.workDir);
    expect(files.some((f) => f.includes(`${join(env.peers.workDir, 'preview')}`))).toBe(true);
    expect(files.some((f) => f.endsWith('.eml'))).toBe(true);
    await leaksInFiles(secrets(), files, found);
    expect(found).toEqual([]);
  });
});
