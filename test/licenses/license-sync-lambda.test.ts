/**
 * functions/license-sync/handler.ts as Lambda runs it (config from its file, names from the environment, the AWS adapters),
 * against s3rver and the emulator: an uploaded CSV is synced and its result file written under results/; hostile and
 * misplaced object keys are refused without reading or writing anything; an unreadable file gets a result file
 * saying why.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.ts';
import { handler } from '../../functions/license-sync/handler.ts';
import { S3ArchiveStore, s3ClientFor } from '../../src/adapters/aws/s3-archive-store.ts';
import { ensureBucket, type RunningPeer, startS3rver } from '../../src/adapters/local/peer-servers.ts';
import { rawConfigFor } from '../helpers/emulator-config.ts';
import { startTestEmulator } from '../helpers/emulator-session.ts';

const BUCKET = 'pulse-lic-sync-test';
let emu: Emulator;
let dir: string;
let s3: RunningPeer;
let client: S3Client;
let store: S3ArchiveStore;
let productId: string;
const saved = { ...process.env };

beforeAll(async () => {
  emu = await startTestEmulator();
  productId = emu.products[0]!.productId;
  dir = await mkdtemp(join(tmpdir(), 'pulse-lic-sync-'));
  s3 = await startS3rver({ directory: dir });
  client = s3ClientFor({ endpoint: s3.endpoint });
  await ensureBucket(client, BUCKET);
  store = new S3ArchiveStore({ client, bucket: BUCKET });
  // The bundle's pulse.config.json (src/app/bundled-config.ts), here with credentials from the environment.
  const configFile = join(dir, 'pulse.config.json');
  await writeFile(
    configFile,
    JSON.stringify({ ...rawConfigFor(emu), archive: { bucket: 'replaced-by-the-environment', prefix: 'pulse' } }),
  );
  Object.assign(process.env, {
    PULSE_CONFIG_FILE: configFile,
    PULSE_ARCHIVE_BUCKET: BUCKET,
    PULSE_STATE_TABLE: 'pulse-state',
    PULSE_USER: emu.credentials.userName,
    PULSE_PASSWORD: emu.credentials.password,
    LOG_LEVEL: 'error',
    // What Lambda's S3 client would reach in AWS, pointed at s3rver.
    AWS_ENDPOINT_URL_S3: s3.endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    AWS_REQUEST_CHECKSUM_CALCULATION: 'WHEN_REQUIRED',
    AWS_RESPONSE_CHECKSUM_VALIDATION: 'WHEN_REQUIRED',
  });
});
afterAll(async () => {
  process.env = saved;
  client?.destroy();
  await s3?.close();
  await emu?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The S3 event of one upload (keys arrive URL-encoded, spaces as `+`). */
const eventFor = (key: string) => ({
  Records: [
    {
      s3: {
        bucket: { name: BUCKET },
        object: { key: encodeURIComponent(key).replace(/%20/g, '+').replace(/%2F/g, '/') },
      },
    },
  ],
});
const text = async (key: string) => {
  const bytes = await store.get(key);
  return bytes && Buffer.from(bytes).toString('utf8');
};

describe('license sync Lambda', () => {
  it('syncs an uploaded CSV and writes the result file under results/', async () => {
    const key = `pulse/license-sync/incoming/${productId}/march keys.csv`;
    await store.put(key, 'licenseKey,licenseType,quota\r\nLAMBDA-1,trial,2\r\n"=LAMBDA-2",,\r\nLAMBDA-3,,x\r\n', {
      contentType: 'text/csv',
    });
    const [result] = await handler(eventFor(key));
    const resultKey = `pulse/license-sync/results/${productId}/march keys.result.csv`;
    expect(result).toMatchObject({
      job: 'licenses-sync',
      ok: false,
      counts: { rows: 3, inserted: 2, invalid: 1, batches: 1 },
      outputs: [resultKey],
    });
    expect(await text(resultKey)).toBe(
      '"line","licenseKey","result","detail"\r\n' +
        '"2","LAMBDA-1","inserted","licenseType: trial; quota: 2"\r\n' +
        `"3","'=LAMBDA-2","inserted",""\r\n` +
        '"4","LAMBDA-3","invalid","quota: ""x"" is not a whole number ≥ 0 or ""none"""\r\n',
    );
    // A second upload of the same file changes nothing.
    const [again] = await handler(eventFor(key));
    expect(again!.counts).toMatchObject({ unchanged: 2, batches: 0 });
  });

  it('refuses hostile or misplaced keys without reading or writing', async () => {
    const keys = [
      `pulse/license-sync/incoming/${productId}/../../../digests/x.csv`,
      `pulse/license-sync/incoming/${productId}/bad\nname.csv`,
      `pulse/license-sync/incoming/${productId}/bad\u202ename.csv`,
      'pulse/license-sync/incoming/55555555555/keys.csv',
      `pulse/license-sync/incoming/${productId}/nested/keys.csv`,
      `pulse/license-sync/incoming/${productId}/keys.txt`,
      `other/license-sync/incoming/${productId}/keys.csv`,
    ];
    for (const key of keys) {
      const [result] = await handler(eventFor(key));
      expect(result!.ok, key).toBe(false);
      expect(result!.errors[0], key).toMatch(/: refused: /);
      expect(result!.outputs).toEqual([]);
    }
    const written = [];
    for await (const o of store.list('pulse/license-sync/results/')) written.push(o.key);
    expect(written.every((k) => k.endsWith('march keys.result.csv'))).toBe(true);
  });

  it('a file unreadable from its header on gets a result file naming the problem', async () => {
    const key = `pulse/license-sync/incoming/${productId}/wrong.csv`;
    await store.put(key, 'key,type\r\nA,trial\r\n', { contentType: 'text/csv' });
    const [result] = await handler(eventFor(key));
    expect(result!.ok).toBe(false);
    expect(await text(`pulse/license-sync/results/${productId}/wrong.result.csv`)).toContain(
      '"1","","invalid","line 1: header: unknown columns ""key"", ""type""; no ""licenseKey"" column',
    );
  });
});
