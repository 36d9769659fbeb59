/**
 * Rules that need the same report share one call (src/usage-alerts/plan-calls.ts): client counts and shares of a
 * product come from one dateRangeReport per period, filters and segment property (a share adds the one split by its
 * property), tracked events from one basicTimeline per product with every rule's event as one selector; each call
 * covers the union of its rules' ranges.
 */
import { describe, expect, it } from 'vitest';
import { UsageAlertRule } from '../../src/config/usage-alerts-schema.ts';
import { planUsageCalls } from '../../src/usage-alerts/plan-calls.ts';

const PRODUCTS = ['12345678901', '9876543210', '40000000017'];
const rule = (id: string, over: Record<string, unknown>) =>
  UsageAlertRule.parse({
    id,
    productIds: PRODUCTS,
    period: { unit: 'day' },
    condition: { kind: 'deviation' },
    owner: 'owner@example.com',
    recipients: [{ address: 'ops@example.com' }],
    metric: { kind: 'clients', status: 'active' },
    ...over,
  });

/** 20 rules over 3 products: client counts of every status, changes, thresholds, 8 events, 2 shares of one property. */
const RULES = [
  ...(['active', 'new', 'lost'] as const).flatMap((status, i) => [
    rule(`clients-${status}`, { metric: { kind: 'clients', status } }),
    rule(`clients-${status}-change`, {
      metric: { kind: 'clients', status },
      condition: { kind: 'change', percent: 25 },
    }),
    rule(`clients-${status}-floor`, {
      metric: { kind: 'clients', status },
      condition: { kind: 'threshold', below: i },
    }),
  ]),
  ...Array.from({ length: 8 }, (_, i) =>
    rule(`event-${i}`, { metric: { kind: 'eventCount', event: { category: 'Editor', name: `Action ${i % 6}` } } }),
  ),
  rule('share-52', { metric: { kind: 'segmentShare', property: 'prodVersion', value: '5.2' } }),
  rule('share-51', { metric: { kind: 'segmentShare', property: 'prodVersion', value: '5.1' } }),
  rule('by-version', { segment: { property: 'prodVersion' } }),
];
const window = { first: '2026-10-01', last: '2026-11-25' };

describe('20 rules over 3 products', () => {
  const plan = planUsageCalls(RULES, new Map(RULES.map((r) => [r.id, window])));

  it('make one call per product and metric family, not one per rule', () => {
    expect(RULES).toHaveLength(20);
    const perProduct = (id: string) =>
      plan.calls
        .filter((c) => c.productId === id)
        .map((c) => c.operationId)
        .sort();
    for (const id of PRODUCTS) expect(perProduct(id)).toEqual(['basicTimeline', 'dateRangeReport', 'dateRangeReport']);
    expect(plan.calls).toHaveLength(9);
    expect(plan.sources).toHaveLength(20 * 3);
  });

  it('ask the timeline for each distinct event once, and the range every rule needs', () => {
    const timeline = plan.calls.find((c) => c.operationId === 'basicTimeline')!;
    expect(timeline.request).toMatchObject({ startDate: '2026-09-23', stopDate: '2026-11-25', dateSplit: 'day' });
    expect((timeline.request.events as unknown[]).length).toBe(6);
    const segmented = plan.calls.find((c) => c.request.levels !== undefined)!;
    expect(segmented.request.levels).toEqual({
      level1: { property: 'prodVersion', sort: 'active', sortDirection: 'desc' },
    });
  });

  it('give different filters, periods or lost-days their own call', () => {
    const more = [
      ...RULES,
      rule('windows-only', { filters: { os: { platform: ['Windows'] } } }),
      rule('weekly', { period: { unit: 'week' } }),
      rule('lost-90', { metric: { kind: 'clients', status: 'lost' }, daysUntilDeclaredLost: 90 }),
    ];
    const p = planUsageCalls(more, new Map(more.map((r) => [r.id, window])));
    expect(p.calls).toHaveLength(9 + 3 * 3);
  });
});

describe('exception and engagement rules', () => {
  const exceptions = (id: string, type: string, unit = 'day') =>
    rule(id, { metric: { kind: 'exceptionCount', exception: { type } }, period: { unit } });
  const engagement = (id: string, measure: string, atLeast: string, over: Record<string, unknown> = {}) =>
    rule(id, { metric: { kind: 'engagement', measure, atLeast, as: 'clients' }, ...over });

  it('share one exception-file call per product, over the days every exception rule needs', () => {
    const rules = [exceptions('timeouts', 'TimeoutError'), exceptions('npe-weekly', 'NullPointerException', 'week')];
    const weeks = { first: '2026-09-28', last: '2026-11-23' };
    const plan = planUsageCalls(
      rules,
      new Map([
        ['timeouts', window],
        ['npe-weekly', weeks],
      ]),
    );
    expect(plan.calls.map((c) => c.operationId)).toEqual(Array(3).fill('exceptionsListFiles'));
    // The weekly rule's 8 baseline weeks before the week of 1 October, to the end of the week of 25 November.
    expect(plan.calls[0]!.request).toEqual({ startDate: '2026-08-03', stopDate: '2026-11-29' });
    expect(new Set(plan.sources.filter((s) => s.productId === PRODUCTS[0]).map((s) => s.call)).size).toBe(1);
  });

  it('make one usageDistribution call per product, period and filters, shared by every measure', () => {
    const short = { first: '2026-11-20', last: '2026-11-25' };
    const rules = [
      engagement('sessions', 'sessions', '6 - 8', { condition: { kind: 'threshold', above: 5 } }),
      engagement('runtime', 'runtime', '≥ 5:01', { condition: { kind: 'change', percent: 20 } }),
      engagement('windows', 'sessions', '2', {
        condition: { kind: 'threshold', above: 5 },
        filters: { os: { platform: ['Windows'] } },
      }),
    ];
    const plan = planUsageCalls(rules, new Map(rules.map((r) => [r.id, short])));
    const first = plan.calls.filter((c) => c.productId === PRODUCTS[0]);
    // 7 days (the change rule's day before included) unfiltered, 6 filtered.
    expect(first).toHaveLength(7 + 6);
    expect(first.filter((c) => c.request.startDate === '2026-11-19')).toEqual([
      {
        key: expect.any(String),
        productId: PRODUCTS[0],
        operationId: 'usageDistribution',
        request: { startDate: '2026-11-19', stopDate: '2026-11-19' },
      },
    ]);
    const sessions = plan.sources.find((s) => s.ruleId === 'sessions' && s.productId === PRODUCTS[0])!;
    const runtime = plan.sources.find((s) => s.ruleId === 'runtime' && s.productId === PRODUCTS[0])!;
    expect(Object.keys(sessions.periods!)).toHaveLength(6);
    expect(Object.values(sessions.periods!).every((k) => Object.values(runtime.periods!).includes(k))).toBe(true);
  });

  it('refuse filters on exceptions, a regex that does not compile, and a bin the interface does not list', () => {
    const issues = (over: Record<string, unknown>) =>
      UsageAlertRule.safeParse({
        id: 'x',
        productIds: PRODUCTS,
        period: { unit: 'day' },
        condition: { kind: 'deviation' },
        owner: 'owner@example.com',
        recipients: [{ address: 'ops@example.com' }],
        ...over,
      }).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(issues({ metric: { kind: 'exceptionCount', exception: { type: 'X' } }, filters: { os: {} } })).toEqual([
      'filters: not with an exceptionCount metric (the exception files are counted whole)',
    ]);
    expect(issues({ metric: { kind: 'exceptionCount', exception: { type: '(', match: 'regex' } } })).toEqual([
      expect.stringMatching(/^metric\.exception\.type: not a regex: /),
    ]);
    expect(issues({ metric: { kind: 'engagement', measure: 'runtime', atLeast: '1:00', as: 'share' } })).toEqual([
      expect.stringMatching(/^metric\.atLeast: not a runtime bin: "1:00" \(one of "≤ 0:05", /),
    ]);
    expect(
      issues({
        metric: { kind: 'engagement', measure: 'sessions', atLeast: '2', as: 'share' },
        segment: { property: 'p' },
      }),
    ).toEqual(['segment: not with the engagement metric (clients only)']);
  });
});
