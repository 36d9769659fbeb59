/**
 * Planted episodes: three anomalies the data set carries on purpose, so usage alerts (and anyone trying them) have
 * something real to fire on and to resolve after. Each is placed relative to the data set's today and picked from
 * the catalogue by the seed alone, so a seed and a today name the same episodes every time (table in
 * emulator/README.md "The data set"):
 *
 * | kind             | where                                     | days before today | size                        |
 * |------------------|-------------------------------------------|-------------------|-----------------------------|
 * | `exceptionSpike` | one exception type of one product         | 13 – 10           | 6 × its usual daily count   |
 * | `versionDrop`    | the clients of one version of one product | 35 – 22           | half of them inactive       |
 * | `eventSurge`     | one tracked event of one product          | 21 – 8            | 2 × its occurrences         |
 *
 * plant.ts writes the version drop into the activity bitset and hands the event surge to the event counting helpers
 * (activity.ts); the exception files add the spike's lines (families/files/day-lines.ts).
 */
import { EXCEPTION_TYPES } from './catalogue.ts';
import { type Day, formatDay, parseDay } from './dates.ts';
import type { EpisodeKind, PlantedEpisode } from './model.ts';
import { EVENT_SEEDS, PRODUCT_DEFINITIONS, RELEASES } from './products.ts';
import { hash3 } from './rng.ts';

export type { EpisodeKind, EventSurge, ExceptionSpike, PlantedEpisode, VersionDrop } from './model.ts';

/** Where each episode sits: its first day (days before today), its length in days and its factor. */
export const EPISODE_TIMING: Readonly<Record<EpisodeKind, { startsDaysAgo: number; days: number; factor: number }>> = {
  exceptionSpike: { startsDaysAgo: 13, days: 4, factor: 6 },
  versionDrop: { startsDaysAgo: 35, days: 14, factor: 0.5 },
  eventSurge: { startsDaysAgo: 21, days: 14, factor: 2 },
};

/**
 * The products episodes are planted in: the first two built-in products, which the example configs serve and which
 * have the clients to make an episode stand out (the third has a tenth of the first one's). Products added with
 * `products` get none, so their data stays the same whatever else is served.
 */
const EPISODE_PRODUCTS = PRODUCT_DEFINITIONS.slice(0, 2).map((p) => p.productId);

/** Tracked events that can surge: basic ones (so the basic reports list them) that many clients use. */
const SURGE_EVENTS = EVENT_SEEDS.filter((e) => e.basic && e.category !== null && e.useChance >= 0.3);

/**
 * Versions that can drop: the three newest released at least 30 days before the drop starts. Clients take a new
 * version within 30 days of its release (generate.ts), so by the drop every client of such a version runs it, and
 * its segment is steady: the drop stands out instead of mixing with an adoption curve.
 */
const DROP_VERSIONS = RELEASES.filter((r) => r.daysAgo >= EPISODE_TIMING.versionDrop.startsDaysAgo + 30).slice(-3);

const SALT: Readonly<Record<EpisodeKind, number>> = {
  exceptionSpike: 0x45584350,
  versionDrop: 0x56455253,
  eventSurge: 0x45564e54,
};

function pick<T>(items: readonly T[], seed: number, kind: EpisodeKind, what: number): T {
  return items[hash3(seed, SALT[kind], what) % items.length]!;
}

function span(seed: number, today: Day, kind: EpisodeKind) {
  const t = EPISODE_TIMING[kind];
  const startDay = today - t.startsDaysAgo;
  const endDay = startDay + t.days - 1;
  return {
    productId: pick(EPISODE_PRODUCTS, seed, kind, 0),
    startDay,
    endDay,
    startDate: formatDay(startDay),
    endDate: formatDay(endDay),
    factor: t.factor,
  };
}

/** The episodes planted in the data set of `seed` and `today` (a day number or `YYYY-MM-DD`), one of each kind. */
export function plantedEpisodes(seed: number, today: Day | string): PlantedEpisode[] {
  const day = typeof today === 'string' ? parseDay(today) : today;
  if (day === undefined) throw new RangeError(`today: not a date YYYY-MM-DD: ${String(today)}`);
  const event = pick(SURGE_EVENTS, seed, 'eventSurge', 1);
  return [
    {
      kind: 'exceptionSpike',
      ...span(seed, day, 'exceptionSpike'),
      exceptionType: pick(EXCEPTION_TYPES, seed, 'exceptionSpike', 1),
    },
    {
      kind: 'versionDrop',
      ...span(seed, day, 'versionDrop'),
      version: pick(DROP_VERSIONS, seed, 'versionDrop', 1).version,
    },
    { kind: 'eventSurge', ...span(seed, day, 'eventSurge'), category: event.category, name: event.name },
  ];
}
