/**
 * `groupBy` (docs/interface.md "Generic reports", used by `lifetimeHistogram`/`lifetimeDataTable`): the unit a lifetime
 * report counts, a client or a distinct value of machineId, licenseKey or a custom property. Units are laid out
 * CSR-style (`members` grouped by unit, `starts` the offsets), so the lifetime pass walks a unit's clients without any
 * per-client map lookup.
 *
 * Decisions (the interface is silent): clients without a value of the groupBy property belong to no unit; a unit is in
 * the population when at least one of its clients is; its lifetime counts sum over all of its clients that match the
 * filters, also those not active in the range (their lifetime up to stopDate still counts).
 */
import type { ProductData, StringColumn } from '../../data/model.ts';
import type { ClientPredicate } from '../../query/filters.ts';
import { groupsOf } from '../../query/group-by.ts';

export interface Units {
  /** Client numbers, grouped by unit. */
  members: Int32Array;
  /** Unit u holds members[starts[u] .. starts[u + 1]). */
  starts: Int32Array;
  count: number;
}

/** Every client its own unit. */
export function clientUnits(clients: Int32Array): Units {
  const starts = new Int32Array(clients.length + 1);
  for (let u = 0; u <= clients.length; u++) starts[u] = u;
  return { members: clients, starts, count: clients.length };
}

/** Units of `groupBy` that hold at least one population client, each with all its clients that match the filters. */
export function groupUnits(
  pd: ProductData,
  groupBy: StringColumn | undefined,
  population: Int32Array,
  match: ClientPredicate,
): Units {
  if (!groupBy) return clientUnits(population);
  const inPopulation = new Uint8Array(pd.n);
  for (const i of population) inPopulation[i] = 1;
  const { start, members: byValue } = groupsOf(groupBy, pd.n);
  const members = new Int32Array(pd.n);
  const starts: number[] = [];
  let used = 0;
  // Code 0 is "no value": those clients belong to no unit.
  for (let code = 1; code + 1 < start.length; code++) {
    let reached = false;
    for (let k = start[code]!; k < start[code + 1]! && !reached; k++) reached = inPopulation[byValue[k]!] === 1;
    if (!reached) continue;
    starts.push(used);
    for (let k = start[code]!; k < start[code + 1]!; k++) if (match(byValue[k]!)) members[used++] = byValue[k]!;
  }
  starts.push(used);
  return { members: members.subarray(0, used), starts: Int32Array.from(starts), count: starts.length - 1 };
}
