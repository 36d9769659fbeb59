/**
 * `groupBy` (docs/interface.md "Generic reports"): what a report counts — clients, or distinct values of machineId,
 * licenseKey or a configured custom property. Clients without a value belong to no unit.
 */
import type { ProductData, StringColumn } from '../data/model.ts';
import { fail, type Json, optString } from '../http/validate.ts';

/** The groupBy column, or undefined for `clientId` (every client its own unit). */
export function parseGroupBy(pd: ProductData, body: Json): StringColumn | undefined {
  const name = optString(body, 'groupBy') ?? 'clientId';
  if (name === 'clientId') return undefined;
  const builtIn = name === 'machineId' || name === 'licenseKey';
  if (!builtIn && !/^C(0[1-9]|1\d|20)$/.test(name))
    fail('groupBy', 'must be clientId, machineId, licenseKey or a configured custom property C01–C20');
  if (!builtIn && !(name in pd.product.customProperties))
    fail('groupBy', `${name} is not a configured custom property`);
  const col = pd.columns.get(name);
  if (col?.kind !== 'string') return fail('groupBy', `${name} has no values`);
  return col;
}

const groupCache = new WeakMap<StringColumn, { start: Uint32Array; members: Uint32Array }>();

/**
 * Clients ordered by their value code (a counting sort), cached per column: the clients of code c are
 * `members[start[c] .. start[c + 1])`, code 0 being "no value".
 */
export function groupsOf(col: StringColumn, n: number): { start: Uint32Array; members: Uint32Array } {
  const hit = groupCache.get(col);
  if (hit) return hit;
  const units = col.dict.length + 1;
  const start = new Uint32Array(units + 1);
  for (let i = 0; i < n; i++) start[col.codes[i]! + 1]!++;
  for (let u = 0; u < units; u++) start[u + 1]! += start[u]!;
  const fill = start.slice(0, units);
  const members = new Uint32Array(n);
  for (let i = 0; i < n; i++) members[fill[col.codes[i]!]!++] = i;
  const g = { start, members };
  groupCache.set(col, g);
  return g;
}
