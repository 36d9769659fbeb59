/**
 * The license sync job against the emulator over real sockets: the exact result file for mixed rows, idempotence
 * (counted update calls), a fault in the middle of a sync and the rerun that completes it, an answer lost after the
 * update was applied (a wrapper: the emulator cannot lose an answer it sent), --dry-run, a BOM split across chunks,
 * and files that cannot be read (named line and column).
 */
import { PassThrough, Readable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.ts';
import { ConsoleLogger } from '../../src/adapters/console-logger.ts';
import { type LicenseKeyRecord, type ReportingClient, TimeoutError } from '../../src/client/index.ts';
import { runLicenseSync, type SyncPorts } from '../../src/licenses/sync/run-sync.ts';
import { SyncCsvError } from '../../src/licenses/sync/sync-csv.ts';
import { resultWriter } from '../../src/licenses/sync/sync-result-file.ts';
import { signedInClient } from '../helpers/emulator-config.ts';
import { startTestEmulator } from '../helpers/emulator-session.ts';

let emu: Emulator;
let client: ReportingClient;
let productId: string;
const logger = new ConsoleLogger({ service: 'test', level: 'error', write: () => undefined });

beforeAll(async () => {
  emu = await startTestEmulator();
  productId = emu.products[0]!.productId;
  client = await signedInClient(emu);
});
afterAll(async () => {
  await client?.logout();
  await emu?.close();
});
beforeEach(() => emu.faults.set({ rules: [] }));

let run = 0;
/** A key no earlier test has used. */
const fresh = (name: string) => `SYNC-${++run}-${name}`;

/** Runs the sync of `csv` (fed in `chunk`-byte pieces); the result file's text, the job result, the update calls. */
async function sync(
  csv: string | Buffer,
  opts: { dryRun?: boolean; batchSize?: number; concurrency?: number; chunk?: number; ports?: Partial<SyncPorts> } = {},
  onBatch?: (n: number) => void,
) {
  const bytes = typeof csv === 'string' ? Buffer.from(csv) : csv;
  const size = opts.chunk ?? 64 * 1024;
  const pieces = Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) =>
    bytes.subarray(i * size, (i + 1) * size),
  );
  const updates: number[] = [];
  const counted: SyncPorts['client'] = {
    searchLicenseKeys: (...a) => client.searchLicenseKeys(...a),
    updateLicenseKeys: (...a) => {
      updates.push(a[1].keyUpdates.length);
      return client.updateLicenseKeys(...a);
    },
  };
  const sink = new PassThrough();
  const parts: Buffer[] = [];
  sink.on('data', (d: Buffer) => parts.push(d));
  const writer = resultWriter(sink);
  let batches = 0;
  const result = await runLicenseSync(
    Readable.from(pieces),
    { client: counted, logger, ...opts.ports },
    {
      productId,
      concurrency: opts.concurrency ?? 4,
      dryRun: opts.dryRun ?? false,
      ...(opts.batchSize ? { batchSize: opts.batchSize } : {}),
      write: async (rows) => {
        await writer.write(rows);
        onBatch?.(++batches);
      },
    },
  );
  await writer.end();
  return { text: Buffer.concat(parts).toString('utf8'), result, updates };
}

const lookUp = async (key: string) =>
  (await client.searchLicenseKeys(productId, { filters: { licenseKey: { type: 'string', value: key } } })).result[0];

/** Two registry records the tests may change (the emulator plants keys with expiry dates and quotas). */
async function existingRecords(): Promise<LicenseKeyRecord[]> {
  const page = await client.searchLicenseKeys(productId, { filters: { autoCollected: true }, paging: { limit: 50 } });
  return page.result.filter((r) => r.expiryDate && !r.licenseKey!.startsWith('SYNC-')).slice(0, 2);
}

const HEADER = 'licenseKey,licenseType,activated,allowed,blocked,expired,expiryDate,quota\r\n';

describe('license sync', () => {
  it('writes one exact result line per row: inserted, updated with the fields changed, unchanged, invalid', async () => {
    const [changed, same] = await existingRecords();
    const s = same!;
    const flags = (r: LicenseKeyRecord) =>
      ['activated', 'allowed', 'blocked', 'expired'].map((f) => String((r.licenseStatus as never)[f])).join(',');
    const newKey = fresh('new');
    const formula = `=${fresh('formula')}+1`;
    const csv =
      HEADER +
      `${newKey},trial,true,,,,2027-03-01,5\r\n` +
      `${changed!.licenseKey},,,,,,2030-12-31,none\r\n` +
      `${s.licenseKey},${s.licenseType},${flags(s)},${s.expiryDate},${s.quota ?? 'none'}\r\n` +
      `"${formula}",,,,,,,\r\n` +
      `${fresh('bad')},,yes,,,,2026-02-30,-1\r\n` +
      `,trial,,,,,,\r\n` +
      `${'K'.repeat(257)},,,,,,,\r\n` +
      `${newKey},purchased,,,,,,\r\n` +
      `"@${fresh('type')}","-cmd|' /C calc'!A0",,,,,,\r\n`;
    const { text, result, updates } = await sync(csv);
    const typeKey = `@SYNC-${run}-type`;
    expect(text.split('\r\n')).toEqual([
      '"line","licenseKey","result","detail"',
      `"2","${newKey}","inserted","licenseType: trial; activated: true; expiryDate: 2027-03-01; quota: 5"`,
      `"3","${changed!.licenseKey}","updated","expiryDate: ${changed!.expiryDate} → 2030-12-31${changed!.quota === null ? '' : `; quota: ${changed!.quota} → none`}"`,
      `"4","${s.licenseKey}","unchanged",""`,
      `"5","'${formula}","inserted",""`,
      `"6","SYNC-${run - 1}-bad","invalid","activated: ""yes"" is not true or false; expiryDate: ""2026-02-30"" is not a date (YYYY-MM-DD) or ""none""; quota: ""-1"" is not a whole number ≥ 0 or ""none"""`,
      '"7","","invalid","licenseKey: required"',
      `"8","${'K'.repeat(257)}","invalid","licenseKey: longer than 256 characters"`,
      `"9","${newKey}","invalid","licenseKey: repeated, first on line 2"`,
      `"10","'${typeKey}","inserted","licenseType: -cmd|' /C calc'!A0"`,
      '',
    ]);
    expect(result.counts).toEqual({
      rows: 9,
      inserted: 3,
      updated: 1,
      unchanged: 1,
      invalid: 4,
      failed: 0,
      batches: 1,
    });
    expect(result.ok).toBe(false);
    expect(result.errors[0]).toMatch(/^line 6: invalid: activated: /);
    expect(updates).toEqual([4]);
    // The registry holds what the file says; the fields the rows left blank are untouched.
    expect(await lookUp(newKey)).toMatchObject({ licenseType: 'trial', expiryDate: '2027-03-01', quota: 5 });
    expect(await lookUp(changed!.licenseKey!)).toMatchObject({
      expiryDate: '2030-12-31',
      quota: null,
      licenseType: changed!.licenseType,
      licenseStatus: changed!.licenseStatus,
    });
    expect(await lookUp(typeKey)).toMatchObject({ licenseType: "-cmd|' /C calc'!A0" });
  });

  it('is idempotent: the same file again sends no update and reports every row unchanged', async () => {
    const rows = Array.from(
      { length: 2500 },
      (_, i) => `${fresh(`idem${i}`)},purchased,true,true,false,false,2028-01-0${1 + (i % 9)},${i}\r\n`,
    );
    const csv = HEADER + rows.join('');
    const first = await sync(csv);
    expect(first.result.counts).toMatchObject({ rows: 2500, inserted: 2500, batches: 3 });
    expect(first.updates).toEqual([1000, 1000, 500]);
    expect(first.result.ok).toBe(true);
    const again = await sync(csv);
    expect(again.updates).toEqual([]);
    expect(again.result.counts).toEqual({
      rows: 2500,
      inserted: 0,
      updated: 0,
      unchanged: 2500,
      invalid: 0,
      failed: 0,
      batches: 0,
    });
    expect(again.result.ok).toBe(true);
  });

  it('a batch failing in the middle leaves its rows failed; running the file again completes them', async () => {
    const keys = Array.from({ length: 3000 }, (_, i) => fresh(`fault${i}`));
    const csv = HEADER + keys.map((k) => `${k},trial,,,,,2027-06-30,\r\n`).join('');
    // One batch at a time, so the fault set once the first batch is written hits the second one.
    const first = await sync(csv, { concurrency: 1 }, (n) => {
      if (n === 1) emu.faults.set({ rules: [{ operations: ['updateLicenseKeys'], serverErrorRate: 1, times: 1 }] });
    });
    const lines = first.text.trimEnd().split('\r\n').slice(1);
    expect(lines).toHaveLength(3000);
    expect(first.result.counts).toMatchObject({ inserted: 2000, failed: 1000, batches: 3 });
    expect(lines[999]).toMatch(/^"1001",".*","inserted"/);
    expect(lines[1000]).toMatch(
      /^"1002","SYNC-\d+-fault1000","failed","update not confirmed \(it may or may not have been applied; run the file again\): .*503/,
    );
    expect(lines[1999]).toMatch(/^"2001",".*","failed"/);
    expect(lines[2000]).toMatch(/^"2002",".*","inserted"/);
    expect(first.result.errors[0]).toMatch(/^lines 1002–2001: update not confirmed/);
    expect(first.result.ok).toBe(false);

    const again = await sync(csv, { concurrency: 1 });
    expect(again.result.counts).toEqual({
      rows: 3000,
      inserted: 1000,
      updated: 0,
      unchanged: 2000,
      invalid: 0,
      failed: 0,
      batches: 1,
    });
    expect(again.updates).toEqual([1000]);
  });

  it('an update applied whose answer was lost: failed now, unchanged on the rerun', async () => {
    const keys = [fresh('lost1'), fresh('lost2')];
    const csv = `licenseKey,quota\n${keys.map((k) => `${k},3`).join('\n')}\n`;
    const losing: Partial<SyncPorts> = {
      client: {
        searchLicenseKeys: (...a) => client.searchLicenseKeys(...a),
        updateLicenseKeys: async (...a) => {
          await client.updateLicenseKeys(...a);
          throw new TimeoutError('attempt 1 timed out', { operationId: 'updateLicenseKeys' });
        },
      },
    };
    const first = await sync(csv, { ports: losing });
    expect(first.result.counts).toMatchObject({ failed: 2, inserted: 0 });
    expect(first.text).toContain(
      '"failed","update not confirmed (it may or may not have been applied; run the file again): ',
    );
    const again = await sync(csv);
    expect(again.result.counts).toMatchObject({ unchanged: 2, failed: 0, batches: 0 });
  });

  it("an item the service refuses is failed with the service's message; the rest of its batch is applied", async () => {
    const [good, refusedKey] = [fresh('good'), fresh('refused')];
    const csv = `licenseKey,expiryDate\n${good},2027-01-01\n${refusedKey},2027-01-02\n`;
    // Our validation is the service's, so a file cannot make it refuse an item: the request is altered on its way.
    const altering: Partial<SyncPorts> = {
      client: {
        searchLicenseKeys: (...a) => client.searchLicenseKeys(...a),
        updateLicenseKeys: (id, body, o) =>
          client.updateLicenseKeys(
            id,
            {
              keyUpdates: body.keyUpdates.map((u) =>
                u.licenseKey === refusedKey ? { ...u, expiryDate: '2027-02-30' } : u,
              ),
            },
            o,
          ),
      },
    };
    const { text, result } = await sync(csv, { ports: altering });
    expect(result.counts).toMatchObject({ inserted: 1, failed: 1 });
    expect(text).toContain(`"2","${good}","inserted","expiryDate: 2027-01-01"`);
    expect(text).toContain(
      `"3","${refusedKey}","failed","refused by the service: keyUpdates[1].expiryDate: invalid date`,
    );
    expect(result.errors).toContain('lines 2–3: the service refused 1 of 2');
    expect(await lookUp(refusedKey)).toBeUndefined();
  });

  it('--dry-run reports new keys and changed fields and writes nothing to the service', async () => {
    const [rec] = await existingRecords();
    const newKey = fresh('dry');
    const csv = `licenseKey,licenseType,blocked\n${newKey},trial,\n${rec!.licenseKey},${rec!.licenseType}-x,${!rec!.licenseStatus!.blocked}\n`;
    const { text, result, updates } = await sync(csv, { dryRun: true });
    expect(updates).toEqual([]);
    expect(result.counts).toMatchObject({ inserted: 1, updated: 1, batches: 1 });
    expect(text).toContain(`"2","${newKey}","inserted","licenseType: trial"`);
    expect(text).toContain(
      `"updated","licenseType: ${rec!.licenseType} → ${rec!.licenseType}-x; blocked: ${rec!.licenseStatus!.blocked} → ${!rec!.licenseStatus!.blocked}"`,
    );
    expect(await lookUp(newKey)).toBeUndefined();
    expect((await lookUp(rec!.licenseKey!))!.licenseType).toBe(rec!.licenseType);
  });

  it('reads a UTF-8 BOM and quoted cells split across chunks, LF or CRLF', async () => {
    const key = fresh('bom, "quoted"\nline');
    const csv = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from(`licenseKey,expiryDate\n"${key.replaceAll('"', '""')}",2029-02-28\r\n`),
    ]);
    const { text, result } = await sync(csv, { chunk: 1 });
    expect(result.counts).toMatchObject({ rows: 1, inserted: 1 });
    expect(text).toContain(`"2","${key.replaceAll('"', '""')}","inserted","expiryDate: 2029-02-28"`);
    expect(await lookUp(key)).toMatchObject({ expiryDate: '2029-02-28' });
  });

  it('refuses a header with unknown, repeated or missing columns, naming them, before anything is sent', async () => {
    const refused = async (csv: string) => {
      const e = await sync(csv).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(SyncCsvError);
      return (e as Error).message;
    };
    expect(await refused('licenseKey,expiry,Quota\nA,1,2\n')).toBe(
      'line 1: header: unknown columns "expiry", "Quota" (columns: licenseKey, licenseType, activated, allowed, blocked, expired, expiryDate, quota)',
    );
    expect(await refused('licenseType,quota,quota\n')).toMatch(
      /^line 1: header: repeated "quota"; no "licenseKey" column/,
    );
    expect(await refused('')).toBe('line 1: no header row');
  });

  it('a file malformed in the middle: the rows before it are completed, the run fails naming the line', async () => {
    const key = fresh('before');
    const { text, result } = await sync(`licenseKey,quota\n${key},1\nbroken,1,2\nnot-read,1\n`);
    expect(text).toContain(`"2","${key}","inserted","quota: 1"`);
    expect(text).not.toContain('not-read');
    expect(result.ok).toBe(false);
    expect(result.errors).toEqual([
      'input line 3: a row must have 2 cells, as the header has: the rows after it were not read',
    ]);
  });
});
