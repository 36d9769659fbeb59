/**
 * License key writes refuse members the interface does not define instead of dropping them (docs/interface.md
 * "License key registry"): such an item goes to `failed`, naming the member and the one it may have meant, and nothing
 * of it is stored; a misspelt top-level member is a 400. Read-only members stay ignored. Over real sockets, PATCH and
 * POST alike, with the registry persisted to a data directory.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.ts';
import { takeViolations } from '../helpers/contract-watch.ts';
import { signedIn, startTestEmulator, type TestSession } from '../helpers/emulator-session.ts';

const SEARCH = '/v3/license-key-registry';
const UPDATE = '/v3/license-key-registry/update';
const dataDir = mkdtempSync(join(tmpdir(), 'pulse-license-unknown-'));
let emu: Emulator;
let s: TestSession;
beforeAll(async () => {
  emu = await startTestEmulator({ dataDir });
  s = await signedIn(emu);
});
afterAll(async () => {
  await emu.close();
  rmSync(dataDir, { recursive: true, force: true });
});
// These requests break the interface on purpose; the suite's contract watch may flag them (the answers must match).
afterEach(() => {
  expect(takeViolations().filter((v) => v.side !== 'request')).toEqual([]);
});

const upsert = (body: unknown, method: 'POST' | 'PATCH') => s.call(method, `${UPDATE}/${s.productId}`, body);
async function record(key: string) {
  const r = await s.post(SEARCH, { filters: { licenseKey: { type: 'string', value: key } } });
  return r.json.result[0] as Record<string, unknown> | undefined;
}
const persisted = () =>
  readdirSync(dataDir)
    .map((f) => readFileSync(join(dataDir, f), 'utf8'))
    .join('\n');

describe.each(['POST', 'PATCH'] as const)('license key %s with a member the interface does not define', (method) => {
  it('fails the item, naming the member and the one it may have meant, and stores nothing of it', async () => {
    const key = `TYPO-${method}`;
    const r = await upsert(
      {
        keyUpdates: [
          { licenseKey: key, licenseType: 'trial', installQuota: 5 },
          { licenseKey: `${key}-OK`, quota: 5 },
        ],
      },
      method,
    );
    expect(r.status).toBe(200);
    expect(r.json.result).toEqual({
      inserted: 1,
      updated: 0,
      failed: [{ licenseKey: key, message: 'keyUpdates[0].installQuota: unknown field (did you mean quota?)' }],
    });
    expect(await record(key)).toBeUndefined();
    expect((await record(`${key}-OK`))?.quota).toBe(5);
    expect(persisted()).toContain(`${key}-OK`);
    expect(persisted()).not.toContain(`"${key}"`);
  });

  it('leaves an existing key untouched when its update carries an unknown member or flag', async () => {
    const key = `EXISTING-${method}`;
    await upsert({ keyUpdates: [{ licenseKey: key, licenseType: 'trial', quota: 2 }] }, method);
    const before = await record(key);
    const r = await upsert(
      {
        keyUpdates: [
          { licenseKey: key, quota: 9, expiry: '2027-01-01' },
          { licenseKey: key, quota: 9, licenseStatus: { active: true } },
          { licenseKey: key, quota: 9, status: { blocked: true } },
          { licenseKey: key, quota: 9, zzz: 1 },
        ],
      },
      method,
    );
    expect(r.json.result).toEqual({
      inserted: 0,
      updated: 0,
      failed: [
        { licenseKey: key, message: 'keyUpdates[0].expiry: unknown field (did you mean expiryDate?)' },
        { licenseKey: key, message: 'keyUpdates[1].licenseStatus.active: unknown flag (did you mean activated?)' },
        { licenseKey: key, message: 'keyUpdates[2].status: unknown field (did you mean licenseStatus?)' },
        {
          licenseKey: key,
          message: 'keyUpdates[3].zzz: unknown field; known: licenseKey, licenseType, licenseStatus, expiryDate, quota',
        },
      ],
    });
    expect(await record(key)).toEqual(before);
  });

  it('still ignores the read-only members of a record sent back as it was read', async () => {
    const key = `READBACK-${method}`;
    await upsert({ keyUpdates: [{ licenseKey: key, quota: 3 }] }, method);
    const read = (await record(key))!;
    const r = await upsert({ keyUpdates: [{ ...read, quota: 4, clientCount: 99, addedDate: '2001-01-01' }] }, method);
    expect(r.json.result).toEqual({ inserted: 0, updated: 1, failed: [] });
    expect(await record(key)).toEqual({ ...read, quota: 4, overQuotaCount: -4 });
  });

  it('answers 400 for a top-level member it does not define, storing nothing', async () => {
    const key = `TOP-${method}`;
    const misspelt = await upsert({ keyUpdate: [{ licenseKey: key }] }, method);
    expect(misspelt.status).toBe(400);
    expect(misspelt.json).toEqual({
      error: 'Bad Request',
      message: 'keyUpdate: unknown field (did you mean keyUpdates?)',
    });
    const extra = await upsert({ keyUpdates: [{ licenseKey: key }], dryRun: true }, method);
    expect(extra.json).toEqual({ error: 'Bad Request', message: 'dryRun: unknown field; known: keyUpdates' });
    expect(await record(key)).toBeUndefined();
  });
});
