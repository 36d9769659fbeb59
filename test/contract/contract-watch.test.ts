/**
 * The suite's contract check (test/helpers/contract-watch.ts, installed by test/helpers/contract-setup.ts): an
 * emulator answer that breaks the interface document, and a request of Pulse's client that breaks it, are each named
 * by operation, side and field path; fault runs and hand-made probes are left alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.ts';
import type { ReportingClient } from '../../src/client/index.ts';
import { describeViolations, takeViolations } from '../helpers/contract-watch.ts';
import { signedInClient } from '../helpers/emulator-config.ts';
import { signedIn, startTestEmulator } from '../helpers/emulator-session.ts';

let emu: Emulator;
let client: ReportingClient;
beforeAll(async () => {
  emu = await startTestEmulator();
  client = await signedInClient(emu);
});
afterAll(async () => {
  await client.logout();
  await emu.close();
});

/** A deliberately broken answer: the sign-in lists the first product's name as a number. */
async function signInWithANumberForAName() {
  const product = emu.state.products.get(emu.products[0]!.productId)!.product;
  const name = product.productName;
  (product as { productName: unknown }).productName = 42;
  try {
    await signedIn(emu);
  } finally {
    product.productName = name;
  }
  return product;
}

describe('the contract watch', () => {
  it('fails a test whose emulator answers off the document, naming the operation and the field path', async () => {
    takeViolations();
    const product = await signInWithANumberForAName();
    const violations = takeViolations();
    expect(violations).toHaveLength(1);
    expect(violations[0]).toMatchObject({ operationId: 'signIn', side: 'response', status: 200 });
    expect(describeViolations(violations)).toBe(
      `contract: signIn response (POST /v3/auth/web → 200) at products[${product.productId}].productName: ` +
        'the document says type string, got 42',
    );
  });

  // Left to the setup file's afterEach: the test fails with the message above (`it.fails` expects exactly that).
  it.fails('fails through the afterEach of the setup file when nobody takes the violation', async () => {
    takeViolations();
    await signInWithANumberForAName();
  });

  it("fails a test whose client request the emulator accepts but the document does not (Pulse's client only)", async () => {
    takeViolations();
    const productId = emu.products[0]!.productId;
    // The emulator also takes a filter object for a flag; the document says a bare boolean.
    const body = { filters: { autoCollected: { type: 'boolean', value: true } }, paging: { limit: 1 } };
    await client.call('searchLicenseKeys', { productId, body });
    expect(describeViolations(takeViolations())).toBe(
      `contract: searchLicenseKeys request (POST /v3/license-key-registry/${productId} → 200) at ` +
        'filters.autoCollected: the document says type boolean, got {"type":"boolean","value":true}',
    );
    // The same body sent by hand probes the emulator's own validation: not the client's to answer for.
    const wire = await signedIn(emu);
    expect((await wire.post('/v3/license-key-registry', body)).status).toBe(200);
    expect(takeViolations()).toEqual([]);
  });

  it('leaves answers alone while a fault profile is set, and exchanges of no operation', async () => {
    takeViolations();
    emu.faults.set({ rules: [{ operations: ['listEvents'], alterShape: { drop: 'result' } }] });
    try {
      const wire = await signedIn(emu);
      expect((await wire.get('/v3/event-tracking')).json).toEqual({});
      expect((await wire.call('GET', '/v3/no-such-operation')).status).toBe(404);
    } finally {
      emu.faults.clear();
    }
    expect(takeViolations()).toEqual([]);
  });

  it('passes what conforms: a report, its errors, the logout', async () => {
    takeViolations();
    const wire = await signedIn(emu);
    const range = { startDate: '2026-10-01', stopDate: '2026-10-31', clientStatus: ['active'] };
    expect((await wire.post('/v3/reporting/generic/dateRange', range)).status).toBe(200);
    expect((await wire.post('/v3/reporting/generic/dateRange', { startDate: 'x' })).status).toBe(400);
    expect((await wire.call('POST', '/v3/auth/logout', {})).status).toBe(204);
    expect(takeViolations()).toEqual([]);
  });
});
