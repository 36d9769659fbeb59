/**
 * Segment objects (docs/interface.md "Segments and levels") against the emulator's real data set: every membership is
 * checked against the client's own property value, read independently through the data model.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ProductData, type StringColumn, stringAt } from '../../emulator/data/model.ts';
import type { Emulator } from '../../emulator/index.ts';
import { assertSegmentableProperty, parseSegmentation, type Segmentation } from '../../emulator/query/segments.ts';
import { startTestEmulator } from '../helpers/emulator-session.ts';

let emu: Emulator;
let pd: ProductData;
beforeAll(async () => {
  emu = await startTestEmulator();
  pd = emu.state.products.get(emu.products[0]!.productId)!;
});
afterAll(() => emu.close());

const str = (name: string) => (i: number) => stringAt(pd.columns.get(name) as StringColumn, i);
const num = (name: string) => (i: number) => {
  const col = pd.columns.get(name);
  return col?.kind === 'number' && !Number.isNaN(col.values[i]!) ? col.values[i]! : null;
};
const parse = (property: string, segments: unknown) => parseSegmentation(pd, property, segments, 'segments');

/** Label → member clients, calling `of` for every client (which also marks split values as present). */
function members(seg: Segmentation, only: (i: number) => boolean = () => true): Map<string, number[]> {
  const out = new Map<string, number[]>(seg.labels.map((l) => [l, []]));
  for (let i = 0; i < pd.n; i++) if (only(i)) for (const id of seg.of(i)) out.get(seg.labels[id]!)!.push(i);
  return out;
}
const labelsOf = (seg: Segmentation, ids: number[]) => ids.map((id) => seg.labels[id]);
const clientsWhere = (f: (i: number) => boolean) => Array.from({ length: pd.n }, (_, i) => i).filter(f);
const distinct = (f: (i: number) => string | null) =>
  [...new Set(clientsWhere(() => true).map(f))].filter((v): v is string => v !== null).sort();

describe('parseSegmentation', () => {
  it('absent or empty segments: one segment per distinct value, alphabetical, no-value clients left out', () => {
    const country = str('geography.country');
    for (const segments of [undefined, null, []]) {
      const seg = parse('geography.country', segments);
      const m = members(seg);
      expect(labelsOf(seg, seg.order())).toEqual(distinct(country));
      for (const [label, clients] of m) expect(clients).toEqual(clientsWhere((i) => country(i) === label));
    }
  });

  it('numbers split numerically; number and numberRange segments match values', () => {
    const ram = num('ram');
    const seg = parse('ram', []);
    members(seg);
    const values = [...new Set(clientsWhere((i) => ram(i) !== null).map(ram))].sort((a, b) => a! - b!);
    expect(labelsOf(seg, seg.order())).toEqual(values.map(String));
    const explicit = parse('ram', [
      { type: 'numberRange', max: 8192, segmentLabel: 'small' },
      { type: 'number', value: 16384 },
      { type: 'numberRange', min: 16384, segmentLabel: 'large', includeNull: true },
    ]);
    const m = members(explicit);
    expect(explicit.order().map((id) => explicit.labels[id])).toEqual(['small', '16384', 'large']);
    expect(m.get('small')).toEqual(clientsWhere((i) => ram(i) !== null && ram(i)! <= 8192));
    expect(m.get('16384')).toEqual(clientsWhere((i) => ram(i) === 16384));
    expect(m.get('large')).toEqual(clientsWhere((i) => ram(i) === null || ram(i)! >= 16384));
  });

  it('segments may overlap, and segments with the same label merge', () => {
    const country = str('geography.country');
    const seg = parse('geography.country', [
      { type: 'stringArray', value: ['US', 'CA'], segmentLabel: 'Americas' },
      { type: 'string', value: 'US' },
      { type: 'string', value: 'BR', segmentLabel: 'Americas' },
    ]);
    const m = members(seg);
    expect(seg.labels).toEqual(['Americas', 'US']);
    expect(m.get('Americas')).toEqual(clientsWhere((i) => ['US', 'CA', 'BR'].includes(country(i)!)));
    const us = clientsWhere((i) => country(i) === 'US');
    expect(us.length).toBeGreaterThan(0);
    for (const i of us) expect([...seg.of(i)].sort()).toEqual([0, 1]);
  });

  it('includeNull: explicit segments take no-value clients; split adds a "<NULL>" segment last', () => {
    const state = str('geography.usState');
    const seg = parse('geography.usState', [
      { type: 'regex', value: '^US-[CN]', split: true, includeNull: true },
      { type: 'string', value: 'US-TX', includeNull: true },
    ]);
    const m = members(seg);
    const split = distinct(state).filter((v) => /^US-[CN]/.test(v));
    expect(labelsOf(seg, seg.order())).toEqual([...split, '<NULL>', 'US-TX']);
    expect(m.get('<NULL>')).toEqual(clientsWhere((i) => state(i) === null));
    expect(m.get('US-TX')).toEqual(clientsWhere((i) => state(i) === null || state(i) === 'US-TX'));
    // The filter sentinel works as a value, too.
    const sentinel = parse('geography.usState', [{ type: 'string', value: '<NULL>', segmentLabel: 'none' }]);
    expect(members(sentinel).get('none')).toEqual(clientsWhere((i) => state(i) === null));
  });

  it('split values appear only once seen; explicit ones always; `present` overrides', () => {
    const country = str('geography.country');
    const seg = parse('geography.country', [
      { type: 'regex', value: '', split: true },
      { type: 'string', value: 'ZZ', segmentLabel: 'nowhere' },
    ]);
    members(seg, (i) => country(i) === 'DE');
    expect(labelsOf(seg, seg.order())).toEqual(['DE', 'nowhere']);
    const fr = seg.labels.indexOf('FR');
    expect(
      labelsOf(
        seg,
        seg.order(undefined, undefined, (id) => id === fr),
      ),
    ).toEqual(['FR', 'nowhere']);
  });

  it('order: by metric (desc by default), by label, and limit applied after sorting', () => {
    const country = str('geography.country');
    const seg = parse('geography.country', [{ type: 'regex', value: '^[A-Z]', split: true, limit: 3 }]);
    const m = members(seg);
    const size = (id: number) => m.get(seg.labels[id]!)!.length;
    const bySize = [...m.keys()].sort((a, b) => m.get(b)!.length - m.get(a)!.length || (a < b ? -1 : 1));
    expect(labelsOf(seg, seg.order(size))).toEqual(bySize.slice(0, 3));
    expect(labelsOf(seg, seg.order(size, 'asc'))).toEqual([...bySize].reverse().slice(0, 3));
    expect(labelsOf(seg, seg.order(undefined, 'desc'))).toEqual(distinct(country).reverse().slice(0, 3));
    expect(labelsOf(seg, seg.order())).toEqual(distinct(country).slice(0, 3));
  });

  it('boolean, licenseStatus, date and hierarchical properties', () => {
    const flags = parse('licenseStatus.blocked', [
      { type: 'boolean', value: true },
      { type: 'boolean', value: false },
    ]);
    const status = parse('licenseStatus', [
      { type: 'licenseStatus', value: [{ blocked: true }, { expired: true }], segmentLabel: 'trouble' },
      { type: 'licenseStatus', value: [{ activated: true, blocked: false }], segmentLabel: 'fine' },
    ]);
    const recordOf = (i: number) => pd.registry.records[pd.licenseKeyIndex[i]!]?.licenseStatus;
    expect(members(flags).get('true')).toEqual(clientsWhere((i) => recordOf(i)?.blocked === true));
    expect(members(flags).get('false')).toEqual(clientsWhere((i) => recordOf(i)?.blocked === false));
    const m = members(status);
    expect(m.get('trouble')).toEqual(
      clientsWhere((i) => !!recordOf(i) && (recordOf(i)!.blocked || recordOf(i)!.expired)),
    );
    expect(m.get('fine')).toEqual(clientsWhere((i) => recordOf(i)?.activated === true && !recordOf(i)!.blocked));
    const dates = parse('dateInstalled', [{ type: 'regex', value: '^2026-1[01]', split: true }]);
    const dm = members(dates);
    for (const [label, clients] of dm)
      expect(clients.every((i) => pd.installDay[i] === Date.parse(label) / 86_400_000)).toBe(true);
    expect(labelsOf(dates, dates.order()).every((l) => /^2026-1[01]-\d\d$/.test(l!))).toBe(true);
    const version = str('os.version');
    const os = parse('os.version', [{ type: 'stringArray', value: ['Windows 11', 'macOS 15'], split: true }]);
    const om = members(os);
    expect(os.order().map((id) => os.labels[id])).toEqual(['Windows 11', 'macOS 15']);
    expect(om.get('macOS 15')).toEqual(clientsWhere((i) => version(i) === 'macOS 15'));
  });

  it('rejects bad properties on the given path', () => {
    const err = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return (e as Error).message;
      }
      return 'no error';
    };
    expect(err(() => assertSegmentableProperty(pd, 'os', 'levels.level1.property'))).toBe(
      'levels.level1.property: segment os by one of its levels: os.platform, os.version, os.edition',
    );
    expect(err(() => assertSegmentableProperty(pd, 'lifetimeEventUsage', 'segmentBy'))).toBe(
      'segmentBy: lifetimeEventUsage cannot be used for segmentation',
    );
    expect(err(() => assertSegmentableProperty(pd, 'C09', 'segmentBy'))).toBe('segmentBy: unknown property C09');
    expect(err(() => assertSegmentableProperty(pd, 42, 'segmentBy'))).toBe('segmentBy: must be a string');
    expect(assertSegmentableProperty(pd, 'licenseStatus', 'x')).toBe('licenseStatus');
    expect(assertSegmentableProperty(pd, 'gpu.model', 'x')).toBe('string');
  });

  it('rejects bad segments with the field path', () => {
    const cases: [string, unknown, string][] = [
      ['vm', {}, 'segments: must be an array'],
      ['vm', [1], 'segments[0]: must be an object'],
      ['vm', [{ value: 'x' }], 'segments[0].type: must be one of string, stringArray, regex'],
      ['ram', [{ type: 'regex', value: '1' }], 'segments[0].type: must be one of number, numberRange'],
      ['licenseStatus.expired', [{ type: 'number', value: 1 }], 'segments[0].type: must be one of boolean'],
      [
        'vm',
        [{ type: 'string', value: 'x', split: true }],
        'segments[0].split: only allowed for stringArray and regex segments',
      ],
      [
        'vm',
        [{ type: 'regex', value: 'x', segmentLabel: 'x', limit: 2 }],
        'segments[0].limit: only allowed with split',
      ],
      ['vm', [{ type: 'regex', value: 'x', split: true, limit: 0 }], 'segments[0].limit: must be ≥ 1'],
      ['vm', [{ type: 'stringArray', value: ['x'] }], 'segments[0].segmentLabel: required when split is false'],
      ['ram', [{ type: 'numberRange', min: 1 }], 'segments[0].segmentLabel: required'],
      ['ram', [{ type: 'numberRange', segmentLabel: 'x' }], 'segments[0]: needs min or max'],
      [
        'ram',
        [{ type: 'numberRange', min: 5, max: 1, segmentLabel: 'x' }],
        'segments[0].min: must not be greater than max',
      ],
      ['ram', [{ type: 'number', value: '1' }], 'segments[0].value: must be a number'],
      ['vm', [{ type: 'regex', value: '(', split: true }], 'segments[0].value: invalid regular expression'],
      ['vm', [{ type: 'string' }], 'segments[0].value: required'],
      ['vm', [{ type: 'stringArray', value: [], split: true }], 'segments[0].value: must have at least 1 item(s)'],
      ['vm', [{ type: 'string', value: 'x', includeNull: 'yes' }], 'segments[0].includeNull: must be a boolean'],
      ['licenseStatus.allowed', [{ type: 'boolean' }], 'segments[0].value: required'],
      ['licenseStatus', [], 'segments: required for licenseStatus (no distinct values)'],
      [
        'licenseStatus',
        [{ type: 'licenseStatus', value: [{ lost: true }], segmentLabel: 'x' }],
        'segments[0].value[0].lost: unknown flag',
      ],
      [
        'licenseStatus',
        [{ type: 'licenseStatus', value: [], segmentLabel: 'x' }],
        'segments[0].value: must have at least 1 item(s)',
      ],
    ];
    for (const [property, segments, message] of cases) {
      expect(() => parse(property, segments), `${property} ${JSON.stringify(segments)}`).toThrow(message);
    }
  });
});
