/**
 * A product the service does not show the user fails every report call with 404. `pulse digest` says so once per
 * product — naming it, the user, the service and what to do — instead of once per report call. Against the emulator
 * with its built-in products and a config naming one it does not have.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../../emulator/index.ts';
import { pulseMain } from '../helpers/cli-main.ts';
import { rawConfigFor } from '../helpers/emulator-config.ts';

const UNKNOWN = '55512345678';
let emu: Emulator;
let tmp: string;
let config: string;

beforeAll(async () => {
  emu = await startEmulator({ clients: 400 });
  tmp = await mkdtemp(join(tmpdir(), 'pulse-unknown-product-'));
  const known = emu.products[0]!.productId;
  config = join(tmp, 'pulse.config.json');
  await writeFile(
    config,
    JSON.stringify({
      ...rawConfigFor(emu),
      products: [{ id: known }, { id: UNKNOWN, name: 'Acme Studio' }],
      state: { tableName: 'pulse-state' },
      digests: [
        {
          id: 'weekly',
          productIds: [known, UNKNOWN],
          recipients: [{ address: 'ceo@example.com' }],
          schedule: { timeZone: 'UTC' },
          owner: 'owner@example.com',
        },
      ],
    }),
  );
});
afterAll(async () => {
  await emu.close();
  await rm(tmp, { recursive: true, force: true });
});

it('names an unknown product once, with the user, the service and what to do', async () => {
  const env = { PULSE_USER: emu.credentials.userName, PULSE_PASSWORD: emu.credentials.password };
  const r = await pulseMain(['digest', '--preview', '--out', join(tmp, 'preview'), '--config', config], env);
  expect(r.code).toBe(1);
  const mentions = r.stderr.split(UNKNOWN).length - 1;
  expect(mentions, r.stderr).toBe(1);
  expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(r.stderr).toContain(
    `would be held: product ${UNKNOWN} (Acme Studio) is not visible to ${emu.credentials.userName} on ${emu.baseUrl}`,
  );
  expect(r.stderr).toContain('check products in the config');
  // The product the service has is collected as usual: nothing else failed.
  expect(r.stderr).not.toMatch(/failed for/);
});
