/**
 * The counting engine of the generic reports `dateRangeReport`/`currentReport` (docs/interface.md "Generic reports"):
 * new / active / lost units per period and per node (a node is the report total or one segment combination). One pass
 * over the clients; a client's active periods come straight from its activity words with precomputed per-period masks,
 * so no day is visited one by one.
 */
import { reportedLossDay } from '../data/activity.ts';
import type { Day } from '../data/dates.ts';
import type { ProductData, StringColumn } from '../data/model.ts';
import { groupsOf } from './group-by.ts';

export const STATUSES = ['new', 'active', 'lost'] as const;
export type Status = (typeof STATUSES)[number];
export const NEW = 0;
export const ACTIVE = 1;
export const LOST = 2;

export interface LostRule {
  daysUntilDeclaredLost: number;
  dateReportedLost: 'dateLastSeen' | 'dateDeclaredLost';
}

export interface CountPlan {
  /** The report range, inclusive; periods tile it (one period when there is no date split). */
  from: Day;
  to: Day;
  periods: readonly { from: Day; to: Day }[];
  /** Which statuses to count (index NEW / ACTIVE / LOST); lost needs `lost`. */
  want: readonly [boolean, boolean, boolean];
  lost: LostRule | undefined;
  today: Day;
  filter: (i: number) => boolean;
  /** Units are distinct values of this column (clients without a value are left out); undefined = clients. */
  groupBy: StringColumn | undefined;
  nodes: number;
  /** Node ids of client i; the array may be reused between calls. */
  nodesOf: (i: number) => readonly number[];
}

export interface Counts {
  periods: number;
  /** counts[(node * 3 + status) * periods + period] */
  counts: Int32Array;
  /** 1 when at least one unit counted in the node (any status, any period). */
  present: Uint8Array;
}

/** The day a unit last seen on `last` is reported lost, or undefined (docs/interface.md "Generic reports"). */
export function lossReportDay(last: Day, rule: LostRule, today: Day): Day | undefined {
  return reportedLossDay(last, rule.daysUntilDeclaredLost, rule.dateReportedLost, today);
}

export function countUnits(pd: ProductData, plan: CountPlan): Counts {
  const P = plan.periods.length;
  const counts = new Int32Array(plan.nodes * 3 * P);
  const present = new Uint8Array(plan.nodes);
  const scan = periodScanner(pd, plan);
  if (plan.groupBy) countGroups(pd, plan, scan, counts, present, plan.groupBy);
  else countClients(pd, plan, scan, counts, present);
  return { periods: P, counts, present };
}

interface Scanner {
  /** Period index of a day in the range. */
  periodOf: Int32Array;
  /** Fills `out` with the periods in which client i was active within [lo, hi] ⊆ range; returns how many. */
  activePeriods(i: number, lo: Day, hi: Day, out: Int32Array): number;
}

/** Per period: first/last activity word and the masks of its days in them, clipped to the bitset. */
function periodScanner(pd: ProductData, plan: CountPlan): Scanner {
  const P = plan.periods.length;
  const periodOf = new Int32Array(plan.to - plan.from + 1);
  const wa = new Int32Array(P);
  const wb = new Int32Array(P);
  const ma = new Uint32Array(P);
  const mb = new Uint32Array(P);
  const lastBit = pd.words * 32 - 1;
  plan.periods.forEach((p, k) => {
    periodOf.fill(k, p.from - plan.from, p.to - plan.from + 1);
    const a = Math.max(0, p.from - pd.firstDay);
    const b = Math.min(lastBit, p.to - pd.firstDay);
    if (b < a) return; // outside the bitset: masks stay 0, never active
    wa[k] = a >>> 5;
    wb[k] = b >>> 5;
    const high = 0xffffffff >>> (31 - (b & 31));
    const low = (0xffffffff << (a & 31)) >>> 0;
    ma[k] = wa[k] === wb[k] ? (low & high) >>> 0 : low;
    mb[k] = wa[k] === wb[k] ? 0 : high;
  });
  const act = pd.activity;
  const words = pd.words;
  const from = plan.from;
  // One-day periods: visiting the set bits beats testing every day's bit.
  const daily = plan.periods.every((p) => p.from === p.to);
  return {
    periodOf,
    activePeriods(i, lo, hi, out) {
      if (hi < lo) return 0;
      const base = i * words;
      if (daily) return activeDays(act, base, lo - pd.firstDay, Math.min(lastBit, hi - pd.firstDay), lo - from, out);
      const pHi = periodOf[hi - from]!;
      let k = 0;
      for (let p = periodOf[lo - from]!; p <= pHi; p++) {
        const w0 = wa[p]!;
        const w1 = wb[p]!;
        let hit = act[base + w0]! & ma[p]!;
        if (hit === 0 && w1 !== w0) {
          for (let w = w0 + 1; w < w1 && hit === 0; w++) hit = act[base + w]!;
          if (hit === 0) hit = act[base + w1]! & mb[p]!;
        }
        if (hit !== 0) out[k++] = p;
      }
      return k;
    },
  };
}

/** Daily periods: the set bits of bit range [a, b] as period indexes (period 0 = bit a - shift). */
function activeDays(act: Uint32Array, base: number, a: number, b: number, first: number, out: Int32Array): number {
  if (a < 0) {
    first -= a;
    a = 0;
  }
  if (b < a) return 0;
  let k = 0;
  for (let w = a >>> 5; w <= b >>> 5; w++) {
    let word = act[base + w]!;
    if (w === a >>> 5) word &= 0xffffffff << (a & 31);
    if (w === b >>> 5) word &= 0xffffffff >>> (31 - (b & 31));
    while (word !== 0) {
      const low = word & -word;
      out[k++] = first + w * 32 + (31 - Math.clz32(low)) - a;
      word ^= low;
    }
  }
  return k;
}

/** Each client is a unit: its contributions go straight to its nodes. */
function countClients(pd: ProductData, plan: CountPlan, scan: Scanner, counts: Int32Array, present: Uint8Array) {
  const P = plan.periods.length;
  const { from, to, today, lost, filter, nodesOf } = plan;
  const [wantNew, wantActive, wantLost] = plan.want;
  const { periodOf } = scan;
  // A client last seen before `from` can still be declared lost inside the range.
  const lostReach = wantLost && lost?.dateReportedLost === 'dateDeclaredLost' ? lost.daysUntilDeclaredLost : 0;
  const active = new Int32Array(P);
  const { installDay, lastSeenDay } = pd;
  for (let i = 0; i < pd.n; i++) {
    const inst = installDay[i]!;
    const last = lastSeenDay[i]!;
    if (inst > to || last + lostReach < from || !filter(i)) continue;
    const newP = wantNew && inst >= from ? periodOf[inst - from]! : -1;
    const k = wantActive ? scan.activePeriods(i, Math.max(from, inst), Math.min(to, last), active) : 0;
    let lostP = -1;
    if (wantLost) {
      const d = lossReportDay(last, lost!, today);
      if (d !== undefined && d >= from && d <= to) lostP = periodOf[d - from]!;
    }
    if (newP < 0 && k === 0 && lostP < 0) continue;
    for (const node of nodesOf(i)) {
      present[node] = 1;
      const base = node * 3 * P;
      if (newP >= 0) counts[base + newP]!++;
      for (let j = 0; j < k; j++) counts[base + P + active[j]!]!++;
      if (lostP >= 0) counts[base + 2 * P + lostP]!++;
    }
  }
}

/**
 * Units made of several clients: per unit, each node it reaches merges its clients (first install = min, last seen
 * = max, active periods = union) over the clients that pass the filter and belong to that node, then counts once.
 */
function countGroups(
  pd: ProductData,
  plan: CountPlan,
  scan: Scanner,
  counts: Int32Array,
  present: Uint8Array,
  col: StringColumn,
) {
  const P = plan.periods.length;
  const PW = (P + 31) >>> 5;
  const { from, to, today, lost, filter, nodesOf } = plan;
  const [wantNew, wantActive, wantLost] = plan.want;
  const { start, members } = groupsOf(col, pd.n);
  const nodeStamp = new Int32Array(plan.nodes).fill(-1);
  const nodeSlot = new Int32Array(plan.nodes);
  let slots = 16;
  let slotNode = new Int32Array(slots);
  let slotFirst = new Int32Array(slots);
  let slotLast = new Int32Array(slots);
  let slotMask = new Uint32Array(slots * PW);
  const active = new Int32Array(P);
  for (let u = 1; u + 1 < start.length; u++) {
    let used = 0;
    for (let m = start[u]!; m < start[u + 1]!; m++) {
      const i = members[m]!;
      if (!filter(i)) continue;
      const inst = pd.installDay[i]!;
      const last = pd.lastSeenDay[i]!;
      const k = wantActive ? scan.activePeriods(i, Math.max(from, inst), Math.min(to, last), active) : 0;
      for (const node of nodesOf(i)) {
        let s = nodeSlot[node]!;
        if (nodeStamp[node] !== u) {
          if (used === slots) {
            slots *= 2;
            slotNode = grow(slotNode, slots);
            slotFirst = grow(slotFirst, slots);
            slotLast = grow(slotLast, slots);
            slotMask = grow(slotMask, slots * PW);
          }
          s = used++;
          nodeStamp[node] = u;
          nodeSlot[node] = s;
          slotNode[s] = node;
          slotFirst[s] = inst;
          slotLast[s] = last;
          slotMask.fill(0, s * PW, (s + 1) * PW);
        } else {
          if (inst < slotFirst[s]!) slotFirst[s] = inst;
          if (last > slotLast[s]!) slotLast[s] = last;
        }
        for (let j = 0; j < k; j++) slotMask[s * PW + (active[j]! >>> 5)]! |= 1 << (active[j]! & 31);
      }
    }
    for (let s = 0; s < used; s++) {
      const base = slotNode[s]! * 3 * P;
      let any = false;
      const first = slotFirst[s]!;
      if (wantNew && first >= from && first <= to) {
        counts[base + scan.periodOf[first - from]!]!++;
        any = true;
      }
      for (let w = 0; w < PW; w++) {
        let word = slotMask[s * PW + w]!;
        while (word !== 0) {
          const low = word & -word;
          counts[base + P + w * 32 + (31 - Math.clz32(low))]!++;
          word ^= low;
          any = true;
        }
      }
      if (wantLost) {
        const d = lossReportDay(slotLast[s]!, lost!, today);
        if (d !== undefined && d >= from && d <= to) {
          counts[base + 2 * P + scan.periodOf[d - from]!]!++;
          any = true;
        }
      }
      if (any) present[slotNode[s]!] = 1;
    }
  }
}

function grow<T extends Int32Array | Uint32Array>(a: T, size: number): T {
  const b = new (a.constructor as new (n: number) => T)(size);
  b.set(a);
  return b;
}
