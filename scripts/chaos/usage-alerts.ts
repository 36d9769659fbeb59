/**
 * The usage alerts of the chaos runs: rules over the chaos product that fire on the emulator's planted episodes
 * (emulator/data/episodes.ts), so a first run in each epoch has firing and resolved changes to tell by email and to
 * every channel kind. The episodes are planted in one of the first two built-in products, picked by the data set's
 * seed; the chaos runs serve one product, so the seed drawn for the data set is moved on to the next one whose
 * event surge and version drop both sit in it (deterministic: the same drawn seed gives the same data set).
 */
import { plantedEpisodes } from '../../emulator/data/episodes.ts';
import type { EventSurge, PlantedEpisode, VersionDrop } from '../../emulator/index.ts';
import { channelAddress } from '../../src/core/channels/channel-targets.ts';
import type { ChannelKind } from '../../src/ports/channels.ts';

/** How the data set seeds are numbered: the chaos runner draws one in 1…SEEDS. */
const SEEDS = 1000;

/** The first seed from `drawn` on (wrapping at SEEDS) whose event surge and version drop are in `productId`. */
export function usageAlertSeed(drawn: number, today: string, productId: string): number {
  const fits = (seed: number) =>
    plantedEpisodes(seed, today).filter(
      (e) => (e.kind === 'eventSurge' || e.kind === 'versionDrop') && e.productId === productId,
    ).length === 2;
  for (let i = 0, seed = drawn; i < SEEDS; i++, seed = (seed % SEEDS) + 1) if (fits(seed)) return seed;
  throw new Error(`no data set seed plants its episodes in product ${productId}`);
}

/** One rule as the invariants see it: its id and every recipient's ledger address (email, `channel:<id>`). */
export interface UsageAlertTargets {
  id: string;
  /** Lower-case email addresses and `channel:<id>`, as the ledger keys end. */
  recipients: string[];
}

/** An epoch's usage alert rules and the kinds of the channels they name. */
export interface EpochUsageAlerts {
  rules: UsageAlertTargets[];
  channels: ReadonlyMap<string, ChannelKind>;
}

/**
 * The epoch's rules (ids `…-e<n>`, so each epoch judges every series from `--since` again): the surge's tracked
 * event against the day before (fires on its first day, resolves the next) and against its trailing median (fires
 * and resolves a few times while it lasts), and the dropped version's weekly share of active clients. Two email
 * recipients (one gets two rules' changes in one email) and each rule in two or three channels, all in the webhook.
 */
export function usageAlertRules(
  n: number,
  episodes: readonly PlantedEpisode[],
  opts: { productId: string; owner: string; emails: [string, string]; channels: { id: string; kind: ChannelKind }[] },
): { rules: Record<string, unknown>[]; targets: EpochUsageAlerts } {
  const surge = episodes.find((e): e is EventSurge => e.kind === 'eventSurge')!;
  const drop = episodes.find((e): e is VersionDrop => e.kind === 'versionDrop')!;
  const of = (kind: ChannelKind) => opts.channels.find((c) => c.kind === kind)!.id;
  const [ops, analyst] = opts.emails;
  const event = { kind: 'eventCount', event: { category: surge.category, name: surge.name } };
  const base = { productIds: [opts.productId], owner: opts.owner, minVolume: 50 };
  const day = { unit: 'day', timeZone: 'UTC' };
  const rules = [
    {
      ...base,
      id: `chaos-surge-e${n}`,
      description: `${surge.category}/${surge.name} up by half day over day`,
      metric: event,
      period: day,
      condition: { kind: 'change', percent: 50, direction: 'up' },
      recipients: [{ address: ops }],
      channels: [of('slack'), of('webhook')],
    },
    {
      ...base,
      id: `chaos-surge-deviation-e${n}`,
      description: `${surge.category}/${surge.name} far above its usual range`,
      metric: event,
      period: day,
      condition: { kind: 'deviation', baselinePeriods: 8, k: 4, direction: 'up' },
      recipients: [{ address: ops }, { address: analyst }],
      channels: [of('teams'), of('webhook')],
    },
    {
      ...base,
      id: `chaos-version-share-e${n}`,
      description: `version ${drop.version}'s share of active clients far below its usual range`,
      metric: { kind: 'segmentShare', property: 'prodVersion', value: drop.version },
      period: { unit: 'week', timeZone: 'UTC' },
      condition: { kind: 'deviation', baselinePeriods: 4, k: 3, direction: 'down' },
      recipients: [{ address: analyst }],
      channels: [of('slack'), of('teams'), of('webhook')],
    },
  ];
  return {
    rules,
    targets: {
      rules: rules.map((r) => ({
        id: r.id,
        recipients: [...r.recipients.map((x) => x.address.toLowerCase()), ...r.channels.map(channelAddress)],
      })),
      channels: new Map(opts.channels.map((c) => [c.id, c.kind])),
    },
  };
}
