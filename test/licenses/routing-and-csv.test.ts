/** Routing (first match wins, else the owner), the CSV cell rules (RFC 4180, formula injection) and the labels. */
import { describe, expect, it } from 'vitest';
import { Licenses } from '../../src/config/licenses-schema.ts';
import { labelsOf } from '../../src/licenses/alerts/labels.ts';
import { routerFor } from '../../src/licenses/alerts/routing.ts';
import { csvCell, csvRow } from '../../src/licenses/shared/csv-cells.ts';

const licenses = Licenses.parse({
  owner: { address: 'owner@example.com' },
  routing: [
    { licenseTypes: ['trial'], recipients: [{ address: 'growth@example.com', timeZone: 'Asia/Tokyo' }] },
    {
      productIds: ['2222'],
      keyPattern: '^SRV-',
      recipients: [{ address: 'srv@example.com' }, { address: 'b@example.com' }],
    },
    { productIds: ['2222'], recipients: [{ address: 'p2@example.com' }] },
  ],
  usage: { heavyClients: 3, dormantClients: 0 },
});

describe('routing', () => {
  const route = routerFor(licenses);
  const to = (product: string, licenseKey: string, licenseType: string) =>
    route(product, { licenseKey, licenseType }).map((r) => r.address);

  it('sends a key to the recipients of the first rule it matches', () => {
    expect(to('2222', 'X', 'trial')).toEqual(['growth@example.com']); // the trial rule comes first
    expect(to('2222', 'SRV-1', 'purchased')).toEqual(['srv@example.com', 'b@example.com']);
    expect(to('2222', 'XSRV-1', 'purchased')).toEqual(['p2@example.com']);
  });

  it('sends keys no rule matches to the owner', () => {
    expect(to('1111', 'SRV-1', 'purchased')).toEqual(['owner@example.com']);
  });
});

describe('CSV cells', () => {
  it.each([
    ['=HYPERLINK("http://x")', `"'=HYPERLINK(""http://x"")"`],
    ['+1', "'+1"],
    ['-2+3', "'-2+3"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\tx', "'\tx"],
    ['\rx', `"'\rx"`],
    ['a,b', '"a,b"'],
    ['line\nbreak', '"line\nbreak"'],
    ['plain', 'plain'],
    ['ü 😀', 'ü 😀'],
  ])('%j → %s', (value, cell) => expect(csvCell(value)).toBe(cell));

  it('writes numbers as numbers, null as empty, CRLF line ends', () => {
    expect(csvRow([-3, null, 'x'])).toBe('-3,,x\r\n');
  });
});

describe('labels', () => {
  const usage = (lastWindow: number) => ({ lastWindow, previousWindow: 0 });
  it('renewal priority, at risk, conversion candidate, revenue leak', () => {
    const expiring = { stage: 'before-7' as const, licenseType: 'purchased', expiredInUse: false };
    expect(labelsOf(expiring, usage(3), licenses)).toEqual(['renewalPriority']);
    expect(labelsOf(expiring, usage(0), licenses)).toEqual(['atRisk']);
    expect(labelsOf(expiring, usage(1), licenses)).toEqual([]);
    expect(labelsOf({ ...expiring, licenseType: 'trial' }, usage(1), licenses)).toEqual(['conversionCandidate']);
    expect(labelsOf({ ...expiring, stage: 'after-1', expiredInUse: true }, usage(0), licenses)).toEqual([
      'revenueLeak',
    ]);
    expect(labelsOf({ ...expiring, stage: 'blocked-in-use' }, usage(5), licenses)).toEqual(['revenueLeak']);
    expect(labelsOf({ ...expiring, stage: 'over-quota' }, usage(5), licenses)).toEqual([]);
  });
});
