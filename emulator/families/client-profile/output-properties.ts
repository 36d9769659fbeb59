/**
 * The per-client values of the client profile report (`clientPropertyList`) and export (`exportClientPropertyList`),
 * compiled once per request into readers over the model's columns, so a page or a million-row export is a plain loop
 * over client numbers.
 */
import { lifetimeEventCount } from '../../data/activity.ts';
import { HIERARCHY_LEVELS } from '../../data/catalogue.ts';
import type { Day } from '../../data/dates.ts';
import { type LicenseStatus, NULL_SENTINEL, type ProductData } from '../../data/model.ts';
import { at, fail } from '../../http/validate.ts';
import { columnOf, isHierarchical, isSpecial, readerOf, type ScalarValue, scalarKind } from '../../query/properties.ts';
import { eventDisplayOrder } from '../event-management.ts';

export interface OutputProperty {
  readonly name: string;
  /** Latest value as a native JSON value; `"<NULL>"` for a missing scalar, `[]` for an empty list. */
  value(i: number): unknown;
  /** Value on an active day of the client (dailyData). */
  valueOn(i: number, day: Day): unknown;
  /** CSV cell: `<NULL>`, `true`/`false`, numbers as JSON writes them, lists as JSON text. */
  cell(i: number): string;
}

const LIST_PROPERTIES = ['lifetimeEventUsage', 'reachOutDeliveries.auto', 'reachOutDeliveries.manual'];

const orNull = (read: (i: number) => ScalarValue) => (i: number) => read(i) ?? NULL_SENTINEL;

/** Latest value of a scalar property. License flags are read from the registry directly, sparing a column build. */
function scalarReader(pd: ProductData, name: string): (i: number) => string | number | boolean {
  if (name.startsWith('licenseStatus.')) {
    const flag = name.slice('licenseStatus.'.length) as keyof LicenseStatus;
    const recs = pd.registry.records;
    const keyOf = pd.licenseKeyIndex;
    return (i) => {
      const k = keyOf[i]!;
      return k < 0 ? NULL_SENTINEL : recs[k]!.licenseStatus[flag];
    };
  }
  const col = columnOf(pd, name);
  return col ? orNull(readerOf(col)) : () => NULL_SENTINEL;
}

function scalarProperty(pd: ProductData, name: string): OutputProperty {
  const value = scalarReader(pd, name);
  const cell = (i: number) => {
    const v = value(i);
    return typeof v === 'string' ? v : String(v);
  };
  // Version and build change once, on the upgrade day; before it the client ran what it installed.
  const install = name === 'prodVersion' ? pd.installVersion : name === 'prodBuild' ? pd.installBuild : undefined;
  if (!install) return { name, value, valueOn: value, cell };
  const installValue = orNull(readerOf(install));
  const upgradeDay = pd.upgradeDay;
  return { name, value, valueOn: (i, day) => (day < upgradeDay[i]! ? installValue(i) : value(i)), cell };
}

function listProperty(name: string, value: (i: number) => readonly unknown[]): OutputProperty {
  return { name, value, valueOn: value, cell: (i) => JSON.stringify(value(i)) };
}

/** Lifetime count of each event the client used: its per-day count times its lifetime active days (and the surge). */
function lifetimeEventUsage(pd: ProductData): OutputProperty {
  const order = eventDisplayOrder(pd);
  const ne = pd.events.length;
  const labels = order.map((e) => ({ eventCategory: pd.events[e]!.category, eventName: pd.events[e]!.name }));
  // The export writes this list for every client, so its JSON text is assembled from pre-serialised fragments.
  const prefixes = labels.map((l) => JSON.stringify(l).slice(0, -1) + ',"eventCount":');
  // The planted surge (activity.ts surgeExtra) adds to one event's count; the others are per-day × days.
  const surging = pd.surge?.event ?? -1;
  const count = (i: number, e: number, perDay: number, days: number) =>
    e === surging ? lifetimeEventCount(pd, i, e) : perDay * days;
  const value = (i: number) => {
    const out: { eventCategory: string | null; eventName: string; eventCount: number }[] = [];
    const days = pd.lifetimeActiveDays[i]!;
    for (let k = 0; k < order.length; k++) {
      const perDay = pd.eventPerDay[i * ne + order[k]!]!;
      if (perDay > 0) out.push({ ...labels[k]!, eventCount: count(i, order[k]!, perDay, days) });
    }
    return out;
  };
  const cell = (i: number) => {
    let text = '';
    const days = pd.lifetimeActiveDays[i]!;
    for (let k = 0; k < order.length; k++) {
      const perDay = pd.eventPerDay[i * ne + order[k]!]!;
      if (perDay > 0) text += (text === '' ? '' : ',') + prefixes[k] + count(i, order[k]!, perDay, days) + '}';
    }
    return '[' + text + ']';
  };
  return { name: 'lifetimeEventUsage', value, valueOn: value, cell };
}

function reachOutDeliveries(pd: ProductData, kind: 'auto' | 'manual'): OutputProperty {
  // One shared item per campaign; items of other kinds are null and skipped.
  const items = pd.campaigns.map((c) => (c.kind === kind ? { reachoutID: c.reachoutID, name: c.name } : null));
  return listProperty(`reachOutDeliveries.${kind}`, (i) => {
    const out: { reachoutID: number; name: string | null }[] = [];
    for (const ci of pd.deliveries[i]!) {
      const item = items[ci];
      if (item) out.push(item);
    }
    return out;
  });
}

function checkName(pd: ProductData, name: string, path: string): void {
  if (LIST_PROPERTIES.includes(name) || scalarKind(pd, name) !== undefined) return;
  if (isHierarchical(name)) {
    const levels = HIERARCHY_LEVELS[name].map((l) => `${name}.${l}`).join(', ');
    fail(path, `special property ${name} cannot be listed; use its levels ${levels}`);
  }
  if (name === 'reachOutDeliveries')
    fail(path, 'special property reachOutDeliveries cannot be listed; use reachOutDeliveries.auto or .manual');
  if (isSpecial(name)) fail(path, `special property ${name} cannot be listed`);
  fail(path, `unknown property ${name}`);
}

/**
 * Validates a `properties` list (at `path`) and compiles it. Duplicates and `clientId` (always the first column)
 * are dropped, so every name appears once per client.
 */
export function compileProperties(pd: ProductData, names: readonly string[], path: string): OutputProperty[] {
  const seen = new Set<string>(['clientId']);
  const out: OutputProperty[] = [];
  names.forEach((name, k) => {
    checkName(pd, name, at(path, k));
    if (seen.has(name)) return;
    seen.add(name);
    if (name === 'lifetimeEventUsage') out.push(lifetimeEventUsage(pd));
    else if (name === 'reachOutDeliveries.auto') out.push(reachOutDeliveries(pd, 'auto'));
    else if (name === 'reachOutDeliveries.manual') out.push(reachOutDeliveries(pd, 'manual'));
    else out.push(scalarProperty(pd, name));
  });
  return out;
}
