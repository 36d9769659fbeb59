/**
 * Each alert's link to the full digest report (src/usage-alerts/report-links.ts) over a real S3 peer: the product's
 * section in the report of the judged period's ISO week, else the week before (the digest goes out after its week),
 * only when the report is there and a reader can open its address (https), and never for a product no digest covers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportDigestsOf } from '../../functions/usage-alerts/runtime.ts';
import { EXAMPLE_CONFIG } from '../../src/app/local-runtime.ts';
import { loadConfig } from '../../src/config/load.ts';
import type { PulseConfig } from '../../src/config/schema.ts';
import { browserCopyKey, digestArchivePrefix } from '../../src/core/digest-report.ts';
import { reportLinkKey, reportLinks } from '../../src/usage-alerts/report-links.ts';
import { startTestBucket, type TestBucket } from '../helpers/s3-bucket.ts';

const PUBLIC = 'https://archive.example.com';
const example = loadConfig(EXAMPLE_CONFIG);
const [desktop, server] = example.products.map((p) => p.id) as [string, string];
const config: PulseConfig = {
  ...example,
  archive: { ...example.archive!, bucket: 'pulse-links', publicBaseUrl: PUBLIC },
  digests: example.digests.map((d) => ({ ...d, productIds: [desktop] })),
};
const digestId = config.digests[0]!.id;
const reportKey = (isoWeek: string) => browserCopyKey(digestArchivePrefix(config.archive!.prefix, digestId, isoWeek));
const warnings: unknown[] = [];
const logger = { warn: (...args: unknown[]) => void warnings.push(args) };

let s3: TestBucket;
let plain: TestBucket;
beforeAll(async () => {
  s3 = await startTestBucket('pulse-links', { publicBaseUrl: PUBLIC });
  plain = await startTestBucket('pulse-plain');
  for (const week of ['2026-W46', '2026-W47'])
    for (const bucket of [s3, plain])
      await bucket.store.put(reportKey(week), `<h1>${week}</h1>`, { contentType: 'text/html; charset=utf-8' });
});
afterAll(async () => {
  await s3?.close();
  await plain?.close();
});

describe("an alert's link to the full digest report", () => {
  it("links the product's section in its week's report, else the week before's; none where there is neither", async () => {
    const changes = [
      { productId: desktop, period: '2026-11-17' }, // W47: its own week's report is there
      { productId: desktop, period: '2026-11-24' }, // W48: not yet written, so W47's
      { productId: desktop, period: '2026-11-02' }, // W45: neither W45 nor W44 is there
      { productId: server, period: '2026-11-17' }, // no digest covers the server
    ];
    const links = await reportLinks(config, s3.store, changes, logger);
    const url = (week: string) => `${PUBLIC}/${reportKey(week)}#product-${desktop}`;
    expect(links.get(reportLinkKey(changes[0]!))).toBe(url('2026-W47'));
    expect(links.get(reportLinkKey(changes[1]!))).toBe(url('2026-W47'));
    expect(links.has(reportLinkKey(changes[2]!))).toBe(false);
    expect(links.has(reportLinkKey(changes[3]!))).toBe(false);
    expect(links.size).toBe(2);
    expect(warnings).toEqual([]);
  });

  it('gives no link where a reader could not open it (no public https address), though the report is there', async () => {
    const { publicBaseUrl: _, ...archive } = config.archive!;
    const links = await reportLinks(
      { ...config, archive },
      plain.store,
      [{ productId: desktop, period: '2026-11-17' }],
      logger,
    );
    expect(links.size).toBe(0);
  });

  it('a report that cannot be looked up costs the link only, with a warning naming the key', async () => {
    const closed = await startTestBucket('pulse-closed', { publicBaseUrl: PUBLIC });
    await closed.close();
    const links = await reportLinks(config, closed.store, [{ productId: desktop, period: '2026-11-17' }], logger);
    expect(links.size).toBe(0);
    expect(warnings).toContainEqual([
      'usage alerts: digest report not looked up',
      expect.objectContaining({ key: reportKey('2026-W47') }),
    ]);
  });

  it('the function reads the digests the stack names (PULSE_REPORT_DIGESTS); a malformed one is a named error', () => {
    const named = [{ id: 'exec-weekly', productIds: [desktop] }];
    expect(reportDigestsOf({ PULSE_REPORT_DIGESTS: JSON.stringify(named) })).toEqual(named);
    expect(reportDigestsOf({})).toBeUndefined();
    expect(() => reportDigestsOf({ PULSE_REPORT_DIGESTS: '[{"id":"x"}]' })).toThrow(
      /^PULSE_REPORT_DIGESTS: .*productIds/s,
    );
  });
});
