/**
 * archiveDigest over s3rver: the digest's record under its week, write-once, and a failed put that waits for the
 * others: none is left in flight when the run goes on to fail (and shuts its local peers down).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { S3ArchiveStore } from '../../src/adapters/aws/s3-archive-store.ts';
import { digestArchivePrefix } from '../../src/core/digest-report.ts';
import { archiveDigest } from '../../src/digest/archive-digest.ts';
import type { PreparedDigest } from '../../src/digest/prepare.ts';
import type { ArchiveStore, PutOptions } from '../../src/ports/archive-store.ts';
import { startTestBucket, type TestBucket } from '../helpers/s3-bucket.ts';
import { barChartPng } from '../helpers/test-png.ts';

let bucket: TestBucket;
let store: S3ArchiveStore;

beforeAll(async () => {
  bucket = await startTestBucket('pulse-digest-archive-test', { emulateConditionalWrites: true });
  store = bucket.store;
});
afterAll(() => bucket.close());

const prepared = (report: string) =>
  ({
    html: '<img src="cid:chart-1.png">',
    text: 'the text part',
    images: [{ cid: 'chart-1.png', filename: 'chart-1.png', contentType: 'image/png', content: barChartPng(40, 20) }],
    charts: new Map([['chart-1.png', barChartPng(40, 20)]]),
    data: { calls: [{ operationId: 'dateRangeReport', response: { ok: true } }] },
    figures: { activeClients: 3 },
    report,
  }) as unknown as PreparedDigest;

const keysUnder = async (base: string) => {
  const keys: string[] = [];
  for await (const o of store.list(base)) keys.push(o.key.slice(base.length));
  return keys.sort();
};

it('writes the record once: a second run for the week keeps the first', async () => {
  const base = digestArchivePrefix('pulse', 'weekly', '2026-W47');
  const keys = await archiveDigest(store, base, prepared('<p>first</p>'));
  expect(keys.at(-1)).toBe(`${base}index.html`);
  expect(await keysUnder(base)).toEqual([
    'chart-1.png',
    'email.html',
    'email.txt',
    'figures.json',
    'index.html',
    'raw-responses.json',
  ]);
  expect(new TextDecoder().decode(await store.get(`${base}email.html`))).toBe('<img src="chart-1.png">');
  await archiveDigest(store, base, prepared('<p>second</p>'));
  expect(new TextDecoder().decode(await store.get(`${base}index.html`))).toBe('<p>first</p>');
});

it('a failed put is thrown only after the other puts have ended; the page is not written', async () => {
  const base = digestArchivePrefix('pulse', 'weekly', '2026-W48');
  const events: string[] = [];
  // The real store, except that email.txt fails at once and raw-responses.json is slow: a fault s3rver cannot time.
  const faulty: ArchiveStore = Object.assign(Object.create(store), {
    put: async (key: string, body: Uint8Array | string, opts: PutOptions) => {
      if (key.endsWith('email.txt')) throw new Error('injected: put failed');
      if (key.endsWith('raw-responses.json')) await new Promise((r) => setTimeout(r, 300));
      const stored = await store.put(key, body, opts);
      events.push(key.slice(base.length));
      return stored;
    },
  });
  const error = await archiveDigest(faulty, base, prepared('<p>page</p>')).catch((e: unknown) => e);
  events.push('thrown');
  expect((error as Error).message).toBe('injected: put failed');
  expect(events.at(-2)).toBe('raw-responses.json'); // the slow put ended before the failure was thrown
  expect(events).not.toContain('index.html');
  expect(await keysUnder(base)).toEqual(['chart-1.png', 'email.html', 'figures.json', 'raw-responses.json']);
});
