/**
 * The local runtime's emulator serves the products the config names: a config of one's own products works locally
 * before any deploy, and the bundled example's products keep the built-in data set.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../emulator/index.ts';
import { ConsoleLogger } from '../../src/adapters/console-logger.ts';
import { emulatorProductsOf } from '../../src/app/local-options.ts';
import { EXAMPLE_CONFIG, type LocalRuntime, startLocalRuntime } from '../../src/app/local-runtime.ts';
import { loadConfig } from '../../src/config/load.ts';
import type { PulseConfig } from '../../src/config/schema.ts';

const logger = new ConsoleLogger({ service: 'test', level: 'error', write: () => undefined });
const example = loadConfig(EXAMPLE_CONFIG);
const own: PulseConfig = {
  ...example,
  products: [{ id: '55512345678', name: 'Acme Studio' }, { id: '7000000001' }],
  digests: example.digests.map((d) => ({ ...d, productIds: ['55512345678', '7000000001'] })),
};

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'pulse-local-products-'));
});
afterAll(() => rm(tmp, { recursive: true, force: true }));

async function withRuntime<T>(config: PulseConfig, dir: string, fn: (rt: LocalRuntime) => Promise<T>): Promise<T> {
  const rt = await startLocalRuntime({ workDir: join(tmp, dir), config, logger, emulator: { clients: 400 } });
  try {
    return await fn(rt);
  } finally {
    await rt.close();
  }
}

describe('the local runtime and the config products', () => {
  it('passes every product of the config once, with its name when it has one', () => {
    expect(emulatorProductsOf(own)).toEqual([
      { productId: '55512345678', productName: 'Acme Studio' },
      { productId: '7000000001' },
    ]);
    const twice = { products: [...own.products, { id: '55512345678', name: 'Again' }] };
    expect(emulatorProductsOf(twice)).toEqual(emulatorProductsOf(own));
  });

  it("serves the config's own products, so their reports answer", async () => {
    await withRuntime(own, 'own', async (rt) => {
      const signIn = await rt.ports.client.signIn();
      expect(signIn.products['55512345678']).toMatchObject({ productName: 'Acme Studio' });
      expect(signIn.products['7000000001']).toMatchObject({ productName: 'Product 7000000001' });
      const body = { startDate: '2026-10-01', stopDate: '2026-10-31', clientStatus: ['active'], dateSplit: 'week' };
      for (const productId of ['55512345678', '7000000001'])
        expect(await rt.ports.client.call('dateRangeReport', { productId, body })).toHaveProperty('result');
    });
  });

  it("keeps the built-in data set for the bundled example's products", async () => {
    const plain = await startEmulator({ clients: 400 });
    try {
      const served = await withRuntime(example, 'example', async (rt) => rt.peers.emulator.products);
      expect(served).toEqual(plain.products);
    } finally {
      await plain.close();
    }
  });
});
