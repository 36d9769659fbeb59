/**
 * `products`: the emulator serves products it was told about besides its built-in ones, each with a data set of its
 * own seeded by the data set's seed and the product's id; the built-in products' data stays byte for byte what it
 * was, however many products are added or named. Bad products fail at start, naming the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emulator, EmulatorConfigError, startEmulator } from '../../emulator/index.ts';
import { emulatorOptionsFromArgs } from '../../src/cli/emulator-command.ts';
import { signedIn, startTestEmulator, TestSession } from '../helpers/emulator-session.ts';

const ACME = { productId: '55512345678', productName: 'Acme Studio' };
const OTHER = { productId: '7000000001', productName: 'Acme Cloud', productType: 'freeware' as const };
const BUILT_IN = ['12345678901', '9876543210', '40000000017'];

let plain: Emulator;
let named: Emulator;
let acmeOnly: Emulator;
let acmeAgain: Emulator;
let otherSeed: Emulator;
const sessions = new Map<Emulator, TestSession>();

beforeAll(async () => {
  [plain, named, acmeOnly, acmeAgain, otherSeed] = await Promise.all([
    startTestEmulator(),
    // The bundled example's way: its products named as they are, plus others.
    startTestEmulator({
      products: [
        { productId: '12345678901', productName: 'Example Desktop' },
        { productId: '9876543210', productName: 'Example Server' },
        OTHER,
        ACME,
      ],
    }),
    startTestEmulator({ products: [ACME] }),
    startTestEmulator({ products: [ACME] }),
    startTestEmulator({ seed: 8, products: [ACME] }),
  ]);
  for (const emu of [plain, named, acmeOnly, acmeAgain, otherSeed]) sessions.set(emu, await signedIn(emu));
});
afterAll(() => Promise.all([plain, named, acmeOnly, acmeAgain, otherSeed].map((e) => e.close())));

const weekly = { startDate: '2025-11-17', stopDate: '2026-11-15', clientStatus: ['new', 'active'], dateSplit: 'week' };
const report = (emu: Emulator, productId: string) =>
  sessions.get(emu)!.post('/v3/reporting/generic/dateRange', weekly, productId);

describe('EmulatorOptions.products', () => {
  it('serves each given product after the built-in ones, under its id, name and type', async () => {
    expect(named.products.map((p) => [p.productId, p.productName])).toEqual([
      ['12345678901', 'Example Desktop'],
      ['9876543210', 'Example Server'],
      ['40000000017', 'Example Viewer'],
      ['7000000001', 'Acme Cloud'],
      ['55512345678', 'Acme Studio'],
    ]);
    const signIn = await new TestSession(named).signIn();
    expect(signIn.json.products[ACME.productId]).toMatchObject({ ...ACME, productType: 'paid', role: 'owner' });
    expect(signIn.json.products[OTHER.productId]).toMatchObject(OTHER);
    const r = await report(named, ACME.productId);
    expect(r.status).toBe(200);
    const active = Object.values(r.json.result as Record<string, { active: number }>).map((w) => w.active);
    expect(active).toHaveLength(52);
    expect(Math.min(...active)).toBeGreaterThan(20); // a real data set, enough for a digest's charts
  });

  it('the built-in products answer byte for byte as without the option', async () => {
    for (const id of BUILT_IN) expect((await report(named, id)).text).toBe((await report(plain, id)).text);
    const files = (emu: Emulator) => sessions.get(emu)!.get('/v3/customEventTracking/listFiles', '9876543210');
    expect((await files(named)).text).toBe((await files(plain)).text);
  });

  it("a given product's data depends on the seed and its id only, not on the other products", async () => {
    const acme = (await report(acmeOnly, ACME.productId)).text;
    expect((await report(acmeAgain, ACME.productId)).text).toBe(acme);
    expect((await report(named, ACME.productId)).text).toBe(acme);
    expect((await report(otherSeed, ACME.productId)).text).not.toBe(acme);
    expect(acme).not.toBe((await report(named, OTHER.productId)).text);
  });

  it('a product it was not given is still unknown (404)', async () => {
    expect((await report(plain, ACME.productId)).status).toBe(404);
  });

  it.each([
    [[{ productId: 'ACME' }], 'products[0].productId: must be a string of 1–20 digits'],
    [[{ productId: 55512345678 }], 'products[0].productId: must be a string of 1–20 digits'],
    [[{ productId: '' }], 'products[0].productId: must be a string of 1–20 digits'],
    [[ACME, { productId: ACME.productId }], 'products[1].productId: 55512345678 is listed twice'],
    [[{ productId: '1', productName: '' }], 'products[0].productName: must be a text of 1–200 characters'],
    [[{ productId: '1', productType: 'trial' }], 'products[0].productType: must be "paid" or "freeware"'],
    ['55512345678', 'products: must be a list'],
  ])('refuses %j at start, naming the field', async (products, message) => {
    const start = startEmulator({ products: products as never });
    await expect(start).rejects.toBeInstanceOf(EmulatorConfigError);
    await expect(start).rejects.toThrow(message);
  });
});

describe('pulse emulator --product', () => {
  it('takes ID=NAME (repeatable) or an id alone', () => {
    const opts = emulatorOptionsFromArgs(
      ['--product', '55512345678=Acme Studio', '--product', '7000000001=A=B', '--product', '42'],
      {},
    );
    expect(opts).toMatchObject({
      products: [
        { productId: '55512345678', productName: 'Acme Studio' },
        { productId: '7000000001', productName: 'A=B' },
        { productId: '42' },
      ],
    });
  });
});
