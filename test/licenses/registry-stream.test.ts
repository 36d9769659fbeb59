/**
 * streamRegistry against the emulator over real sockets: every key once, in key order, with at most `concurrency`
 * pages in flight, whatever the page size; a record the jobs cannot read is left out and reported.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.ts';
import { compareCodePoints } from '../../src/api/code-point-order.ts';
import type { ReportingClient } from '../../src/client/index.ts';
import { streamRegistry } from '../../src/licenses/shared/registry-stream.ts';
import { signedInClient } from '../helpers/emulator-config.ts';
import { startTestEmulator } from '../helpers/emulator-session.ts';

let emu: Emulator;
let client: ReportingClient;
beforeAll(async () => {
  emu = await startTestEmulator();
  client = await signedInClient(emu);
});
afterAll(async () => {
  await client?.logout();
  await emu?.close();
});

describe('streamRegistry', () => {
  it('hands on every key once, in key order, with no more than `concurrency` pages in flight', async () => {
    const productId = emu.products[0]!.productId;
    const all = await client.searchLicenseKeys(productId, { paging: { limit: 1000 } });
    let inFlight = 0;
    let most = 0;
    const counting = {
      searchLicenseKeys: async (...args: Parameters<ReportingClient['searchLicenseKeys']>) => {
        most = Math.max(most, ++inFlight);
        try {
          return await client.searchLicenseKeys(...args);
        } finally {
          inFlight--;
        }
      },
    };
    const seen: string[] = [];
    let pages = 0;
    for await (const page of streamRegistry(counting, productId, { concurrency: 3, pageSize: 7 })) {
      pages++;
      seen.push(...page.map((k) => k.licenseKey));
    }
    expect(seen).toEqual(all.result.map((r) => r.licenseKey));
    expect(seen.length).toBe(all.matchingKeysCount);
    expect([...seen].sort(compareCodePoints)).toEqual(seen);
    expect(pages).toBe(Math.ceil(seen.length / 7));
    expect(most).toBe(3);
  });

  it('leaves out a record without a usable key and reports it; a repeated key is handed on once', async () => {
    const good = { licenseKey: 'A', licenseType: 'trial', expiryDate: '2026-12-01', clientCount: 2 };
    const pages = [
      [good, { licenseType: 'purchased' }, { ...good, licenseKey: 'B' }],
      // A key inserted before this page was read shifted it: B comes again.
      [
        { ...good, licenseKey: 'B' },
        { ...good, licenseKey: 'C' },
      ],
    ];
    const fake = {
      searchLicenseKeys: async (_p: string, body?: { paging?: { startAt?: number } }) => ({
        result: pages[(body?.paging?.startAt ?? 0) / 3] ?? [],
        matchingKeysCount: 5,
      }),
    };
    const problems: string[] = [];
    const keys: string[] = [];
    for await (const page of streamRegistry(fake as never, '1', {
      concurrency: 2,
      pageSize: 3,
      onProblem: (p) => problems.push(p),
    }))
      keys.push(...page.map((k) => k.licenseKey));
    expect(keys).toEqual(['A', 'B', 'C']);
    expect(problems).toEqual(['product 1: a registry record without a valid licenseKey (1–256 characters)']);
  });
});
