/**
 * runDigest end to end over the real local peers: the emulator for the reports, dynalite for the ledger, s3rver for
 * the archive and the SMTP sink for delivery. One set of peers for the file; each scenario has its own digest id, so
 * its ledger keys, archive prefix and messages are its own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbLedger, dynamoDocumentClientFor } from '../../src/adapters/aws/dynamodb-ledger.ts';
import type { PulseConfig } from '../../src/config/schema.ts';
import { parseIsoWeek } from '../../src/core/calendar.ts';
import type { JobResult } from '../../src/core/job-result.ts';
import type { CallRecord } from '../../src/digest/data.ts';
import { formatCount } from '../../src/digest/format.ts';
import { planDigestCalls } from '../../src/digest/plan.ts';
import { runDigest } from '../../src/digest/run-digest.ts';
import { fixedClock } from '../../src/ports/clock.ts';
import {
  AFTER_SEND,
  CURRENT_WEEK,
  DIGEST_TODAY,
  expectWellFormedDigest,
  isNotice,
  LAST_WEEK,
  type LocalDigest,
  type ReceivedMail,
  startLocalDigest,
} from '../helpers/local-digest.ts';

const [DESKTOP, SERVER, THIRD] = ['12345678901', '9876543210', '40000000017'] as const;
const HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(2)>';
const OWNER = 'owner@example.com';
const to = (...names: string[]) => names.map((n) => ({ address: `${n}@example.com` }));
const at = (time: string) => fixedClock(`${DIGEST_TODAY}T${time}:00Z`);
const textOf = (m: ReceivedMail) => m.parsed.text ?? '';
const htmlOf = (m: ReceivedMail) => (typeof m.parsed.html === 'string' ? m.parsed.html : '');

let env: LocalDigest;
beforeAll(async () => {
  env = await startLocalDigest({
    products: [
      { id: DESKTOP, name: 'Desktop' },
      { id: SERVER, name: 'Server' },
      { id: THIRD, name: HOSTILE },
    ],
    digests: [
      { id: 'weekly', productIds: [DESKTOP, SERVER], recipients: to('ann', 'bob'), owner: OWNER },
      { id: 'race', productIds: [DESKTOP], recipients: to('r1', 'r2', 'r3'), owner: OWNER },
      { id: 'guarded', productIds: [SERVER], recipients: to('g1', 'g2'), owner: 'guard-owner@example.com' },
      { id: 'partial', productIds: [DESKTOP], recipients: to('p1'), owner: OWNER },
      {
        id: 'scheduled',
        productIds: [DESKTOP],
        recipients: [{ address: 'utc@example.com' }, { address: 'ny@example.com', timeZone: 'America/New_York' }],
        schedule: { day: 'monday', time: '08:00', timeZone: 'UTC' },
        owner: OWNER,
      },
      { id: 'hostile', productIds: [THIRD], recipients: to('h1'), owner: OWNER },
    ],
  });
}, 30_000);
afterAll(async () => {
  // Whatever ran, no log line carried the service password.
  expect(env.logLines.join('\n')).not.toContain(env.peers.emulator.credentials.password);
  await env.close();
});

const run = (ids: string[], opts: Parameters<typeof runDigest>[2] = {}, clock = AFTER_SEND, config = env.config) =>
  runDigest(config, env.ports(clock), { digestIds: ids, ...opts });

describe('a full run', () => {
  const base = `pulse/digests/weekly/${LAST_WEEK}/`;
  let first: JobResult;
  let mails: ReceivedMail[];
  beforeAll(async () => {
    first = await run(['weekly']);
    mails = await env.mails('weekly');
  });

  it('sends one well-formed email per recipient for the week that just ended', () => {
    expect(first).toMatchObject({ ok: true, counts: { sent: 2, skippedAlreadySent: 0, held: 0, failed: 0 } });
    expect(first.errors).toEqual([]);
    expect(mails.map((m) => m.to).sort()).toEqual(['ann@example.com', 'bob@example.com']);
    for (const m of mails) {
      expectWellFormedDigest(m);
      expect(m.parsed.subject).toContain('Week 47 · 16–22 Nov 2026');
      expect(m.parsed.headers.get('x-pulse-week')).toBe(LAST_WEEK);
    }
  });

  it('archives the page, every call of the run with request and response, the figures and the images', async () => {
    const keys: string[] = [];
    for await (const o of env.peers.archive.list(base)) keys.push(o.key);
    const images = mails[0]!.parsed.attachments.map((a) => `${base}${a.cid}`);
    expect(keys.sort()).toEqual(
      expect.arrayContaining([`${base}index.html`, `${base}raw-responses.json`, `${base}figures.json`, ...images]),
    );
    expect(first.outputs).toEqual(expect.arrayContaining([`${base}index.html`, ...images]));

    const calls = await archivedCalls(base);
    const planned = planDigestCalls([DESKTOP, SERVER], parseIsoWeek(LAST_WEEK), {
      daysUntilDeclaredLost: 30,
      sections: env.config.digests[0]!.sections,
    });
    expect(calls.map(({ response: _, ...call }) => call)).toEqual(planned);
    for (const c of calls) expect(c.error, `${c.operationId} ${c.purpose}`).toBeUndefined();
    const figures = JSON.parse(await archivedText(`${base}figures.json`));
    expect(figures).toMatchObject({ isoWeek: LAST_WEEK, start: '2026-11-16', stop: '2026-11-22' });

    // The text part's KPIs are the archived responses' numbers: every figure can be traced to its call.
    for (const [productId, name] of [
      [DESKTOP, 'Desktop'],
      [SERVER, 'Server'],
    ] as const) {
      const weekly = calls.find((c) => c.productId === productId && c.purpose === 'weekly')!;
      const counts = (weekly.response as { result: Record<string, { new: number; active: number; lost: number }> })
        .result['2026-11-16']!;
      for (const m of mails) {
        // The product's own section: from its heading to the next one (Server's runs to the end).
        const text = textOf(m);
        const start = text.indexOf(`\n${name}\n`);
        expect(start).toBeGreaterThan(0);
        const next = text.indexOf('\nServer\n', start + 1);
        const section = text.slice(start, next > start ? next : undefined);
        expect(section).toContain(`New clients: ${formatCount(counts.new)}`);
        expect(section).toContain(`Active clients: ${formatCount(counts.active)}`);
        expect(section).toContain(`Lost clients: ${formatCount(counts.lost)}`);
      }
    }
  });

  it('links "View in browser" and each product block to the archived full report, which carries every chart', async () => {
    const link = `${env.peers.s3Endpoint}/${env.peers.bucket}/${base}index.html`;
    for (const m of mails) {
      expect(htmlOf(m)).toContain(`href="${link}"`);
      expect(htmlOf(m)).toContain(`href="${link}#product-${DESKTOP}"`);
      expect(textOf(m)).toContain(`Full report in your browser: ${link}`);
    }
    const page = await (await fetch(link)).text();
    expect(page).not.toContain('cid:');
    expect(page).toContain(`id="product-${DESKTOP}"`);
    const image = mails[0]!.parsed.attachments[0]!;
    expect(page).toContain(`data:image/png;base64,${image.content.toString('base64')}`);
    // The email as sent is archived beside it, its images as sibling objects.
    const email = await (await fetch(new URL('email.html', link))).text();
    expect(email).toContain(`src="${image.cid}"`);
    const served = new Uint8Array(await (await fetch(new URL(image.cid!, link))).arrayBuffer());
    expect(Buffer.from(served).equals(image.content)).toBe(true);
  });

  it('sends nothing on a second run, and a later recipient gets it without the archive being replaced', async () => {
    const again = await run(['weekly'], {}, at('10:30'));
    expect(again).toMatchObject({ ok: true, counts: { sent: 0, skippedAlreadySent: 2, held: 0 } });
    expect(await env.mails('weekly')).toHaveLength(2);

    const page = await archivedText(`${base}index.html`);
    const withCat = withDigest('weekly', (d) => ({
      ...d,
      recipients: [...d.recipients, { address: 'cat@example.com' }],
    }));
    const later = await run(['weekly'], {}, at('11:00'), withCat);
    expect(later).toMatchObject({ ok: true, counts: { sent: 1, skippedAlreadySent: 2 } });
    const cat = (await env.mails('weekly')).find((m) => m.to === 'cat@example.com')!;
    expect(htmlOf(cat)).toContain(`Generated ${DIGEST_TODAY} 11:00 UTC`);
    expect(page).toContain(`Generated ${DIGEST_TODAY} 10:00 UTC`);
    expect(await archivedText(`${base}index.html`)).toBe(page);
  });
});

it('two concurrent runs on one ledger table send each recipient exactly once, and say which run sent', async () => {
  const doc = dynamoDocumentClientFor({ endpoint: env.peers.dynamodbEndpoint });
  try {
    const otherScheduler = {
      ...env.ports(),
      ledger: new DynamoDbLedger({ client: doc, tableName: env.peers.tableName }),
    };
    const results = await Promise.all([run(['race']), runDigest(env.config, otherScheduler, { digestIds: ['race'] })]);
    const total = (name: 'sent' | 'skippedAlreadySent' | 'inProgressElsewhere') =>
      results.reduce((n, r) => n + (r.counts as Record<string, number>)[name]!, 0);
    // A recipient the other run was sending at that moment is in progress elsewhere, not already sent.
    expect(total('sent')).toBe(3);
    expect(total('skippedAlreadySent') + total('inProgressElsewhere')).toBe(3);
    expect(results.every((r) => r.ok)).toBe(true);
    const received = (await env.mails('race')).map((m) => m.to).sort();
    expect(received).toEqual(['r1@example.com', 'r2@example.com', 'r3@example.com']);
  } finally {
    doc.destroy();
  }
});

describe('the guard', () => {
  it('holds the digest over a failed call, notifies the owner once a day, and --force sends with a banner', async () => {
    env.peers.emulator.faults.set({ rules: [{ operations: ['usageDistribution'], serverErrorRate: 1 }] });
    try {
      const held = await run(['guarded']);
      expect(held).toMatchObject({ ok: false, counts: { sent: 0, held: 2 } });
      expect(held.errors.join('\n')).toContain('usageDistribution');
      const notices = () => env.mails('guarded').then((ms) => ms.filter(isNotice));
      expect((await env.mails('guarded')).filter((m) => !isNotice(m))).toEqual([]);
      const [notice, ...more] = await notices();
      expect(more).toEqual([]);
      expect(notice!.to).toBe('guard-owner@example.com');
      expect(textOf(notice!)).toContain('usageDistribution');
      expect(textOf(notice!)).toContain(`pulse digest --digest guarded --week ${LAST_WEEK} --force`);

      const heldAgain = await run(['guarded'], {}, at('16:00'));
      expect(heldAgain).toMatchObject({ ok: false, counts: { sent: 0, held: 2 } });
      expect(await notices()).toHaveLength(1);

      const forced = await run(['guarded'], { force: true }, at('17:00'));
      expect(forced.counts).toMatchObject({ sent: 2, held: 0 });
      const sent = (await env.mails('guarded')).filter((m) => !isNotice(m));
      expect(sent.map((m) => m.to).sort()).toEqual(['g1@example.com', 'g2@example.com']);
      for (const m of sent) {
        expect(m.parsed.subject).toContain('data incomplete');
        expect(htmlOf(m)).toMatch(/Data incomplete: [^<]*usageDistribution/);
        expect(textOf(m)).toMatch(/!! Data incomplete: .*usageDistribution/);
      }
    } finally {
      env.peers.emulator.faults.set({ rules: [] });
    }
  });

  it('holds a week that is not over yet', async () => {
    const result = await run(['partial'], { week: CURRENT_WEEK });
    expect(result).toMatchObject({ ok: false, counts: { sent: 0, held: 1 } });
    expect(result.errors.join('\n')).toContain(`week ${CURRENT_WEEK} is not complete`);
    expect((await env.mails('partial')).filter((m) => !isNotice(m))).toEqual([]);
  });
});

it('on a schedule, sends to each recipient once the send time has passed in their time zone', async () => {
  const early = await run(['scheduled'], { scheduled: true }, at('06:00'));
  expect(early).toMatchObject({ ok: true, counts: { sent: 0, skippedAlreadySent: 0, held: 0, failed: 0 } });
  expect(await env.mails('scheduled')).toEqual([]);

  // 10:00 UTC is 05:00 in New York: only the UTC recipient is due.
  const utc = await run(['scheduled'], { scheduled: true }, at('10:00'));
  expect(utc).toMatchObject({ ok: true, counts: { sent: 1, held: 0 } });
  const ny = await run(['scheduled'], { scheduled: true }, at('13:30'));
  expect(ny).toMatchObject({ ok: true, counts: { sent: 1, skippedAlreadySent: 1 } });
  expect((await env.mails('scheduled')).map((m) => m.to)).toEqual(['utc@example.com', 'ny@example.com']);
});

it('shows a hostile product name as text in the HTML and literally in the text part', async () => {
  const result = await run(['hostile']);
  expect(result.counts.sent).toBe(1);
  const [mail] = await env.mails('hostile');
  const html = htmlOf(mail!);
  expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  // As text the payload is harmless; as markup it would be a tag of its own.
  expect(html).not.toMatch(/<script|<img src=x|<[^>]*onerror/i);
  expect(textOf(mail!)).toContain(HOSTILE);
});

async function archivedText(key: string): Promise<string> {
  const body = await env.peers.archive.get(key);
  if (!body) throw new Error(`${key} is not in the archive`);
  return Buffer.from(body).toString('utf8');
}

const archivedCalls = async (base: string): Promise<CallRecord[]> =>
  JSON.parse(await archivedText(`${base}raw-responses.json`));

function withDigest(id: string, change: (d: PulseConfig['digests'][number]) => PulseConfig['digests'][number]) {
  return { ...env.config, digests: env.config.digests.map((d) => (d.id === id ? change(d) : d)) };
}
