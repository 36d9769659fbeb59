/** "What changed" sentences: deterministic, about the actual biggest mover, thresholds and leader changes. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastCompleteIsoWeek } from '../../src/core/calendar.ts';
import type { DigestData, ProductData } from '../../src/digest/data.ts';
import { computeFigures } from '../../src/digest/figures.ts';
import { computeHighlights, NO_CHANGES } from '../../src/digest/highlights.ts';
import { collectWith, type DigestPeer, startDigestPeer } from './digest-peer.ts';

let peer: DigestPeer;
let data: DigestData;

beforeAll(async () => {
  peer = await startDigestPeer();
  data = await collectWith(peer, lastCompleteIsoWeek(new Date(peer.emu.clock.now()), 'UTC'));
});
afterAll(() => peer.close());

const opts = { notableChangePercent: 10 };
const highlightsOf = (d: DigestData, o = opts) => computeHighlights(computeFigures(d, { names: peer.names }), o);
/** A copy of the data with one product changed. */
function withProduct(d: DigestData, index: number, change: (p: ProductData) => void): DigestData {
  const copy = structuredClone(d);
  change(copy.products[index]!);
  return copy;
}

interface Move {
  name: string;
  metric: string;
  value: number;
  change: number;
}
type Weeks = { productId: string; weeks: Record<string, number>[] };
/** Week-over-week moves of the last two weeks of each series (base ≥ 20, as documented), computed here. */
function movesOf(series: Weeks[]): Move[] {
  return series.flatMap(({ productId, weeks }) => {
    const [previous, current] = weeks.slice(-2);
    return ['new', 'active', 'lost'].flatMap((metric) => {
      const [v, p] = [current![metric]!, previous![metric]!];
      return p >= 20 && v !== p
        ? [{ name: peer.names[productId]!, metric, value: v, change: ((v - p) / p) * 100 }]
        : [];
    });
  });
}
/** The series straight from the raw weekly responses of the run. */
const rawSeries = (d: DigestData): Weeks[] =>
  d.calls
    .filter((c) => c.purpose === 'weekly')
    .map((c) => {
      const result = (c.response as { result: Record<string, Record<string, number>> }).result;
      return {
        productId: c.productId,
        weeks: Object.keys(result)
          .sort()
          .map((k) => result[k]!),
      };
    });
const dataSeries = (d: DigestData): Weeks[] =>
  d.products.map((p) => ({ productId: p.productId, weeks: p.weekly!.map(({ weekStart: _, ...counts }) => counts) }));

describe('computeHighlights', () => {
  it('is deterministic: the same input gives the same sentences', () => {
    const first = highlightsOf(data);
    expect(highlightsOf(structuredClone(data))).toEqual(first);
    expect(highlightsOf(data)).toEqual(first);
    expect(first.length).toBeGreaterThan(0);
  });

  it('names the actual biggest mover, with its en-US number', () => {
    const moves = movesOf(rawSeries(data));
    expect(moves.length).toBeGreaterThan(0);
    const top = moves.reduce((a, b) => (Math.abs(b.change) > Math.abs(a.change) ? b : a));
    const sentence = highlightsOf(data).find((s) => s.endsWith('the largest change this week.'));
    const metric = { new: 'New clients', active: 'Active clients', lost: 'Lost clients' }[top.metric];
    expect(sentence).toBe(
      `${metric} in ${top.name} ${top.change > 0 ? 'rose' : 'fell'} ${Math.abs(top.change).toFixed(1)}% to ` +
        `${top.value.toLocaleString('en-US')} — the largest change this week.`,
    );
  });

  it('formats large numbers en-US and calls out every move beyond the threshold', () => {
    // Scale one product up so its counts run into thousands; its moves keep their percentages.
    const big = withProduct(data, 0, (p) => {
      for (const w of p.weekly!) for (const m of ['new', 'active', 'lost'] as const) w[m] *= 100;
    });
    const sentences = highlightsOf(big, { notableChangePercent: 0.1 });
    const beyond = sentences.filter((s) => s.includes('beyond the 0.1% threshold'));
    expect(beyond.length).toBe(movesOf(dataSeries(big)).filter((m) => Math.abs(m.change) >= 0.1).length - 1);
    expect(sentences.some((s) => /to \d{1,3}(,\d{3})+/.test(s))).toBe(true);
    expect(highlightsOf(big, { notableChangePercent: 1000 }).some((s) => s.includes('threshold'))).toBe(false);
  });

  it('reports a new version leader, a new top country and a new most frequent exception', () => {
    const changed = withProduct(data, 0, (p) => {
      const [a, b] = p.versions!.week;
      [a!.active, b!.active] = [b!.active, a!.active + 1000];
      p.versions!.week.sort((x, y) => y.active - x.active);
      p.countries!.week = [{ label: 'NZ', active: 5000 }, ...p.countries!.week];
      p.exceptions!.week = [{ type: 'Boom', message: 'It went <b>boom</b>', count: 999 }, ...p.exceptions!.week];
    });
    const name = peer.names[peer.productIds[0]!]!;
    const newLeader = changed.products[0]!.versions!.week[0]!.label;
    const oldLeader = data.products[0]!.versions!.week[0]!.label;
    const sentences = highlightsOf(changed);
    expect(sentences).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          new RegExp(`^Version ${newLeader} is now the most used version of ${name} .*last week ${oldLeader}\\)\\.$`),
        ),
      ]),
    );
    expect(sentences.some((s) => s.startsWith(`New Zealand overtook `) && s.includes(`top country of ${name}`))).toBe(
      true,
    );
    expect(sentences).toContain(
      `A new most frequent exception in ${name}: Boom: It went <b>boom</b> (999 times this week).`,
    );
    // Leader sentences come after the activity sentences, in product order.
    expect(sentences.findIndex((s) => s.startsWith('Version'))).toBeGreaterThan(
      sentences.findIndex((s) => s.includes('largest change')),
    );
  });

  it('says there is nothing notable when nothing moved', () => {
    const flat = structuredClone(data);
    for (const p of flat.products) {
      const last = p.weekly!.at(-1)!;
      p.weekly = p.weekly!.map((w) => ({ ...last, weekStart: w.weekStart }));
      p.versions!.previousWeek = p.versions!.week;
      p.countries!.previousWeek = p.countries!.week;
      p.exceptions!.previousWeek = p.exceptions!.week;
    }
    expect(highlightsOf(flat)).toEqual([NO_CHANGES]);
  });
});
