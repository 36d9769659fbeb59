import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usageBetween } from '../../emulator/data/activity.ts';
import { parseDay } from '../../emulator/data/dates.ts';
import { type ProductData, type StringColumn, stringAt } from '../../emulator/data/model.ts';
import type { Emulator } from '../../emulator/index.ts';
import { signedIn, startTestEmulator, TestSession } from '../helpers/emulator-session.ts';
import { keysOf, parseInWireOrder, rangeOf } from '../helpers/wire-order.ts';

const PATH = '/v3/reporting/engagement/usageDistribution';
const SESSION_LABELS = ['≤ 1', '2', '3', '4 - 5', '6 - 8', '9 - 12', '13 - 20', '≥ 21'];
const RUNTIME_LABELS = ['≤ 0:05', '0:06 - 0:15', '0:16 - 0:30', '0:31 - 1:00', '1:01 - 2:00', '2:01 - 5:00', '≥ 5:01'];

let emu: Emulator;
let s: TestSession;
let pd: ProductData;
beforeAll(async () => {
  emu = await startTestEmulator();
  s = await signedIn(emu);
  pd = emu.state.products.get(s.productId)!;
});
afterAll(() => emu.close());

/** Bin finder over labels: the index of the one label whose range holds v; fails unless exactly one does. */
function binner(labels: string[]): (v: number) => number {
  const ranges = labels.map(rangeOf);
  return (v) => {
    const hits = ranges.flatMap(([lo, hi], k) => (v >= lo && v <= hi ? [k] : []));
    if (hits.length !== 1) throw new Error(`${v} falls into ${hits.length} bins of ${labels.join(', ')}`);
    return hits[0]!;
  };
}

interface Bin {
  users: number;
  [nested: string]: number | Record<string, number>;
}

interface Usage {
  activeDays: number;
  sessions: number;
  runtimeMinutes: number;
}
function population(start: string, stop: string, keep: (i: number) => boolean = () => true): Usage[] {
  const out: Usage[] = [];
  for (let i = 0; i < pd.n; i++) {
    if (!keep(i)) continue;
    const u = usageBetween(pd, i, parseDay(start)!, parseDay(stop)!);
    if (u.activeDays > 0) out.push(u);
  }
  return out;
}

/** The whole expected answer, built from the data and the labels' own ranges. */
function expectedResult(users: Usage[], dayLabels: string[]) {
  const blocks = { activeDays: dayLabels, sessions: SESSION_LABELS, runtime: RUNTIME_LABELS };
  const names = Object.keys(blocks) as (keyof typeof blocks)[];
  const bins = names.map((b) => binner(blocks[b]));
  // Per user, its bin in each of the three blocks.
  const binsOf = users.map((u) => [u.activeDays, u.sessions, u.runtimeMinutes].map((v, b) => bins[b]!(v)));
  const count = (pred: (ub: number[]) => boolean) => binsOf.filter(pred).length;
  return Object.fromEntries(
    names.map((outer, o) => [
      outer,
      Object.fromEntries(
        blocks[outer].map((label, k) => {
          const nested = names.flatMap((inner, n) =>
            n === o
              ? []
              : [
                  [
                    inner,
                    Object.fromEntries(blocks[inner].map((l, j) => [l, count((ub) => ub[o] === k && ub[n] === j)])),
                  ],
                ],
          );
          return [label, { users: count((ub) => ub[o] === k), ...Object.fromEntries(nested) }];
        }),
      ),
    ]),
  );
}

describe('usageDistribution', () => {
  it('cross-tabulates active days, sessions and runtime of the clients active in the range', async () => {
    const body = { startDate: '2026-09-01', stopDate: '2026-10-15' };
    const r = await s.post(PATH, body);
    expect(r.status).toBe(200);
    const dayLabels = Array.from({ length: 45 }, (_, k) => String(k + 1));
    const users = population(body.startDate, body.stopDate);
    expect(users.length).toBeGreaterThan(50);
    expect(r.json.result).toEqual(expectedResult(users, dayLabels));

    const { activeDays, sessions, runtime } = r.json.result;
    const total = (block: Record<string, Bin>) => Object.values(block).reduce((a, b) => a + b.users, 0);
    expect(total(activeDays)).toBe(users.length);
    expect(total(sessions)).toBe(users.length);
    expect(total(runtime)).toBe(users.length);
    for (const block of [activeDays, sessions, runtime])
      for (const bin of Object.values(block as Record<string, Bin>))
        for (const nested of Object.values(bin)) {
          if (typeof nested === 'number') continue;
          const values = Object.values(nested);
          expect(values.every(Number.isInteger)).toBe(true);
          expect(values.reduce((a, b) => a + b, 0)).toBe(bin.users);
        }
  });

  it('keeps every bin, in bin order, on the wire', async () => {
    const r = await s.post(PATH, { startDate: '2026-11-01', stopDate: '2026-11-07' });
    expect(r.status).toBe(200);
    const result = parseInWireOrder(r.text)['#result']!;
    expect(keysOf(result)).toEqual(['activeDays', 'sessions', 'runtime']);
    expect(keysOf(result['#activeDays'])).toEqual(['1', '2', '3', '4', '5', '6', '7']);
    expect(keysOf(result['#sessions'])).toEqual(SESSION_LABELS);
    expect(keysOf(result['#runtime'])).toEqual(RUNTIME_LABELS);
    for (const bin of Object.values(result['#activeDays']!)) {
      expect(keysOf(bin['#sessions'])).toEqual(SESSION_LABELS);
      expect(keysOf(bin['#runtime'])).toEqual(RUNTIME_LABELS);
    }
    for (const bin of Object.values(result['#runtime']!)) {
      expect(keysOf(bin['#activeDays'])).toEqual(['1', '2', '3', '4', '5', '6', '7']);
      expect(keysOf(bin['#sessions'])).toEqual(SESSION_LABELS);
    }
  });

  it('leaves out clients whose lifetime spans the range without an active day in it', async () => {
    const day = '2026-11-15';
    const d = parseDay(day)!;
    let spanning = 0;
    for (let i = 0; i < pd.n; i++) if (pd.installDay[i]! <= d && pd.lastSeenDay[i]! >= d) spanning++;
    const users = population(day, day);
    expect(users.length).toBeLessThan(spanning);
    const r = await s.post(PATH, { startDate: day, stopDate: day });
    expect(r.status).toBe(200);
    expect(r.json.result).toEqual(expectedResult(users, ['1']));
  });

  it('applies globalFilters to the population, and answers zero bins when nobody matches', async () => {
    const col = pd.columns.get('prodEdition') as StringColumn;
    const body = {
      startDate: '2026-10-20',
      stopDate: '2026-11-20',
      globalFilters: { prodEdition: { type: 'stringArray', value: ['Professional', 'Enterprise'] } },
    };
    const r = await s.post(PATH, body);
    expect(r.status).toBe(200);
    const users = population(body.startDate, body.stopDate, (i) =>
      ['Professional', 'Enterprise'].includes(stringAt(col, i) ?? ''),
    );
    expect(users.length).toBeGreaterThan(0);
    expect(users.length).toBeLessThan(population(body.startDate, body.stopDate).length);
    const dayLabels = Array.from({ length: 32 }, (_, k) => String(k + 1));
    expect(r.json.result).toEqual(expectedResult(users, dayLabels));

    const none = await s.post(PATH, {
      startDate: '2026-11-20',
      stopDate: '2026-11-20',
      globalFilters: { prodEdition: { type: 'string', value: 'No Such Edition' } },
    });
    expect(none.status).toBe(200);
    expect(none.json.result).toEqual(expectedResult([], ['1']));
  });

  it('answers 400 naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ stopDate: '2026-10-01' }, 'startDate: required'],
      [{ startDate: '2026-10-01' }, 'stopDate: required'],
      [{ startDate: '2026-02-30', stopDate: '2026-10-01' }, 'startDate: invalid date (expected YYYY-MM-DD)'],
      [{ startDate: 20261001, stopDate: '2026-10-01' }, 'startDate: must be a date string YYYY-MM-DD'],
      [{ startDate: '2026-10-02', stopDate: '2026-10-01' }, 'startDate: must not be after stopDate'],
      [
        { startDate: '2026-10-01', stopDate: '2026-10-02', globalFilters: { nope: { type: 'string', value: 'x' } } },
        'globalFilters.nope: unknown property nope',
      ],
      [
        { startDate: '2026-10-01', stopDate: '2026-10-02', globalFilters: { ram: { type: 'string', value: 'x' } } },
        'globalFilters.ram.type: must be one of number, numberRange for ram',
      ],
      [{ startDate: '2026-10-01', stopDate: '2026-10-02', globalFilters: [] }, 'globalFilters: must be an object'],
    ];
    for (const [body, message] of cases) {
      const r = await s.post(PATH, body);
      expect(r.status).toBe(400);
      expect(r.json).toEqual({ error: 'Bad Request', message });
    }
  });

  it('answers 404 for an unknown product and 401 without a session', async () => {
    const body = { startDate: '2026-10-01', stopDate: '2026-10-02' };
    const r = await s.post(PATH, body, '31415926535');
    expect(r.status).toBe(404);
    expect(r.json.error).toBe('Not Found');
    const anonymous = await new TestSession(emu).post(PATH, body);
    expect(anonymous.status).toBe(401);
  });
});
