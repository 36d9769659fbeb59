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
