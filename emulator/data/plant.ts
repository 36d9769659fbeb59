/**
 * Writes a product's planted episodes (episodes.ts) into its generated data, before the lifetime totals are summed,
 * so every report reads them from the one data model: the version drop clears activity bits, the event surge is
 * handed to the event counting helpers (activity.ts) as a SurgePlan. The exception spike needs nothing here: the
 * exception files derive their lines on demand (families/files/day-lines.ts).
 */
import { activeBetween } from './activity.ts';
import type { ProductData, StringColumn, VersionDrop } from './model.ts';

export function plantEpisodes(pd: ProductData): void {
  for (const ep of pd.episodes) {
    if (ep.kind === 'versionDrop') dropVersion(pd, ep);
    else if (ep.kind === 'eventSurge') {
      const event = pd.events.findIndex((e) => e.category === ep.category && e.name === ep.name);
      if (event >= 0) pd.surge = { event, from: ep.startDay, to: ep.endDay, extra: ep.factor - 1 };
    }
  }
}

/**
 * A share `1 − factor` of the clients whose version is `version` and who were active in the drop is inactive on its
 * days while running that version: from the later of the drop's start and their upgrade to it. Every other one of
 * them in client order (not a random draw), so the share holds exactly even for a version with a few dozen active
 * clients. Install and last-seen days stay active, so install and last-seen dates (and everything derived from them:
 * lost clients, the license registry) are unchanged.
 */
function dropVersion(pd: ProductData, drop: VersionDrop): void {
  const col = pd.columns.get('prodVersion') as StringColumn;
  const code = col.dict.indexOf(drop.version) + 1;
  if (code === 0) return;
  const share = 1 - drop.factor;
  let rank = 0;
  for (let i = 0; i < pd.n; i++) {
    if (col.codes[i] !== code) continue;
    const from = Math.max(drop.startDay, pd.upgradeDay[i]!);
    if (!activeBetween(pd, i, from, drop.endDay)) continue;
    rank++;
    if (Math.floor(rank * share) === Math.floor((rank - 1) * share)) continue;
    const base = i * pd.words;
    for (let d = Math.max(from, pd.installDay[i]! + 1); d <= Math.min(drop.endDay, pd.lastSeenDay[i]! - 1); d++) {
      const bit = d - pd.firstDay;
      pd.activity[base + (bit >>> 5)]! &= ~(1 << (bit & 31));
    }
  }
}
