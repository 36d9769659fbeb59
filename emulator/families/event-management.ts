/** Event tracking management: `listEvents` (docs/interface.md "Event list"). */
import { formatDay } from '../data/dates.ts';
import type { ProductData, TrackedEvent } from '../data/model.ts';
import { compareCodePoints } from '../data/strings.ts';
import type { Handler } from '../http/handler.ts';

function compareCategories(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return compareCodePoints(a, b);
}

/** Indexes into pd.events in display order: categories by name with uncategorised last, then events by name. */
export function eventDisplayOrder(pd: ProductData): number[] {
  const ev = pd.events;
  return ev
    .map((_, k) => k)
    .sort((x, y) => compareCategories(ev[x]!.category, ev[y]!.category) || compareCodePoints(ev[x]!.name, ev[y]!.name));
}

const eventEntry = (e: TrackedEvent) => ({
  eventName: e.name,
  basic: e.basic,
  advanced: e.advanced,
  dateFirstSeen: formatDay(e.dateFirstSeen),
});

const listEvents: Handler = (ctx) => {
  const result: { category: string | null; categoryEventNames: ReturnType<typeof eventEntry>[] }[] = [];
  for (const k of eventDisplayOrder(ctx.pd)) {
    const e = ctx.pd.events[k]!;
    const last = result[result.length - 1];
    if (last && last.category === e.category) last.categoryEventNames.push(eventEntry(e));
    else result.push({ category: e.category, categoryEventNames: [eventEntry(e)] });
  }
  return { result };
};

export const eventManagementHandlers: Record<string, Handler> = { listEvents };
