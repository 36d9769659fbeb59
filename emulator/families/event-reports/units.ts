/**
 * `groupBy` (api-shapes §5, used by [10]/[11]): the unit a lifetime report counts, a client or a distinct value of
 * machineId, licenseKey or a custom property. Units are laid out CSR-style (`members` grouped by unit, `starts`
 * the offsets), so the lifetime pass walks a unit's clients without any per-client map lookup.
 *
 * Decisions (the spec is silent): clients without a value of the groupBy property belong to no unit; a unit is in
 * the population when at least one of its clients is; its lifetime counts sum over all of its clients that match
 * the filters, also those not active in the range (their lifetime up to stopDate still counts).
 */
import type { ProductData } from '../../data/model.ts';
import { fail, type Json } from '../../http/validate.ts';
import type { ClientPredicate } from '../../query/filters.ts';

export interface Units {
  /** Client numbers, grouped by unit. */
  members: Int32Array;
  /** Unit u holds members[starts[u] .. starts[u + 1]). */
  starts: Int32Array;
  count: number;
}

const FIXED_GROUP_BY = ['clientId', 'machineId', 'licenseKey'];

/** The `groupBy` member: `clientId` (default), `machineId`, `licenseKey`, or a configured custom property. */
export function parseGroupBy(pd: ProductData, body: Json): string {
  const v = body.groupBy;
  if (v === undefined || v === null) return 'clientId';
  if (typeof v !== 'string') fail('groupBy', 'must be a string');
  const custom = /^C(0[1-9]|1\d|20)$/.test(v) && v in pd.product.customProperties;
  if (!FIXED_GROUP_BY.includes(v) && !custom)
    fail('groupBy', 'must be clientId, machineId, licenseKey or a configured custom property C01–C20');
  return v;
}

/** Every client its own unit. */
export function clientUnits(clients: Int32Array): Units {
  const starts = new Int32Array(clients.length + 1);
  for (let u = 0; u <= clients.length; u++) starts[u] = u;
  return { members: clients, starts, count: clients.length };
}

/** Units of `groupBy` that hold at least one population client, each with all its clients that match the filters. */
export function groupUnits(pd: ProductData, groupBy: string, population: Int32Array, match: ClientPredicate): Units {
  if (groupBy === 'clientId') return clientUnits(population);
  const col = pd.columns.get(groupBy);
  if (col?.kind !== 'string') return clientUnits(new Int32Array(0));
  const codes = col.codes;
  // unitOf[code] = unit number + 1 for codes held by a population client (0 = not a unit); units in code order.
  const unitOf = new Int32Array(col.dict.length + 1);
  for (const i of population) if (codes[i]! !== 0) unitOf[codes[i]!] = 1;
  let count = 0;
  for (let c = 1; c < unitOf.length; c++) if (unitOf[c] === 1) unitOf[c] = ++count;
  const starts = new Int32Array(count + 1);
  const unitOfClient = new Int32Array(pd.n).fill(-1);
  for (let i = 0; i < pd.n; i++) {
    const u = unitOf[codes[i]!]! - 1;
    if (u >= 0 && match(i)) {
      unitOfClient[i] = u;
      starts[u + 1]!++;
    }
  }
  for (let u = 0; u < count; u++) starts[u + 1]! += starts[u]!;
  const fill = starts.slice(0, count);
  const members = new Int32Array(starts[count]!);
  for (let i = 0; i < pd.n; i++) {
    const u = unitOfClient[i]!;
    if (u >= 0) members[fill[u]!++] = i;
  }
  return { members, starts, count };
}
