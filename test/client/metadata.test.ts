/** productProperties, propertyValues and listEvents through the typed client, against the emulator. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError } from '../../src/client/errors.ts';
import { expectSameAsWire, type Peer, startPeer } from './typed-vs-wire.ts';

let peer: Peer;
beforeAll(async () => {
  peer = await startPeer();
});
afterAll(() => peer.close());

const codePointOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

describe('productProperties', () => {
  it('returns the wire JSON; every property names itself and its flags', async () => {
    const r = await peer.client.productProperties();
    await expectSameAsWire(peer, r, 'productProperties', undefined);
    const names = r.result.flatMap((c) => c.properties.map((p) => p.name));
    expect(names).toContain('prodVersion');
    expect(new Set(names).size).toBe(names.length);
  });

  it('with a productId, calls the product form `…/productProperties/{product_id}`', async () => {
    const r = await peer.client.productProperties({ productId: peer.productId });
    expect(r).toEqual(await peer.client.productProperties());
    await expect(peer.client.productProperties({ productId: '99999999999' })).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('propertyValues', () => {
  it('lists values ascending, equal to the wire JSON, and continues after startAfter', async () => {
    const { client, productId } = peer;
    const body = { property: 'prodVersion' };
    const all = await client.propertyValues(productId, body);
    await expectSameAsWire(peer, all, 'propertyValues', productId, body);
    const values = all.result.map((v) => v.value);
    expect(values.length).toBeGreaterThan(2);
    expect(values).toEqual([...values].sort(codePointOrder));
    expect(all.reachedEnd).toBe(true);

    const rest = await client.propertyValues(productId, { ...body, startAfter: values[0]! });
    expect(rest.result.map((v) => v.value)).toEqual(values.slice(1));
  });

  it('takes granularity and a regex filter; keeps shortName where the service sends one', async () => {
    const { client, productId } = peer;
    const countries = { property: 'geography', granularity: 'country' };
    const r = await client.propertyValues(productId, countries);
    await expectSameAsWire(peer, r, 'propertyValues', productId, countries);
    expect(r.result.every((v) => /^[A-Z]{2}$/.test(v.value))).toBe(true);

    const os = { property: 'os', granularity: 'version', filter: { type: 'regex' as const, value: 'Windows' } };
    const versions = await client.propertyValues(productId, os);
    await expectSameAsWire(peer, versions, 'propertyValues', productId, os);
    expect(versions.result.length).toBeGreaterThan(0);
    expect(versions.result.every((v) => v.value.includes('Windows'))).toBe(true);
    expect(versions.result.some((v) => typeof v.shortName === 'string')).toBe(true);
  });
});

describe('listEvents', () => {
  it('returns the wire JSON: categories by name with null last, events by name', async () => {
    const { client, productId } = peer;
    const r = await client.listEvents(productId);
    await expectSameAsWire(peer, r, 'listEvents', productId);
    const categories = r.result.map((c) => c.category);
    expect(categories.length).toBeGreaterThan(1);
    const named = categories.filter((c): c is string => c !== null);
    expect(named).toEqual([...named].sort(codePointOrder));
    expect(categories.indexOf(null)).toBe(categories.includes(null) ? categories.length - 1 : -1);
    for (const c of r.result) {
      const names = c.categoryEventNames.map((e) => e.eventName);
      expect(names).toEqual([...names].sort(codePointOrder));
    }
    // The emulator's own data: the same number of events.
    const pd = peer.emu.state.products.get(productId)!;
    expect(r.result.reduce((n, c) => n + c.categoryEventNames.length, 0)).toBe(pd.events.length);
  });
});
