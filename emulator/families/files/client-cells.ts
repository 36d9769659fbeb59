/**
 * The client metadata cells of an event line (`clientId` through `geography.usState`, docs/interface.md
 * "Latest lines"), as strings: flags "Y"/"N", numbers as text, "" for no value. One reader per product is built once,
 * then each line is a pass over its column readers.
 */
import type { Day } from '../../data/dates.ts';
import { type NumberColumn, type ProductData, type StringColumn, stringAt } from '../../data/model.ts';

/** `customEventsLastLines` keys and labels from `timestamp` through `geography.usState`, shared by every family. */
export const CLIENT_FIELDS: readonly (readonly [string, string])[] = [
  ['timestamp', 'Timestamp'],
  ['clientId', 'Client ID'],
  ['prodEdition', 'Edition'],
  ['prodVersion', 'Version'],
  ['prodBuild', 'Build'],
  ['prodLanguage', 'Product Language'],
  ['licenseType', 'License Type'],
  ['licenseStatus.allowed', 'Key Allowed'],
  ['licenseStatus.blocked', 'Key Blocked'],
  ['licenseStatus.activated', 'Key Activated'],
  ['licenseStatus.expired', 'Key Expired'],
  ['os.version', 'OS Type'],
  ['osWordLength', 'OS Architecture'],
  ['osLanguage', 'OS Language'],
  ['windowsFullBuild', 'Windows Build'],
  ['cpuType', 'CPU Type'],
  ['cpuCores', 'CPU Cores'],
  ['ram', 'RAM (MB)'],
  ['displayCount', 'Number of Monitors'],
  ['resolution', 'Screen Resolution'],
  ['dotNetVersion', '.NET Versions'],
  ['gpu.model', 'GPU'],
  ['formFactor', 'Computer Type'],
  ['javaVmVersion', 'Java VM Version'],
  ['javaVersion', 'Java Version'],
  ['javaVmName', 'Java VM Name'],
  ['javaVendor', 'Java Vendor'],
  ['Java Runtime Version', 'Java Runtime Version'],
  ['Java AWT Graphics Environment', 'Java AWT Graphics Environment'],
  ['javaVmRam', 'Java VM RAM (MB)'],
  ['vm', 'Virtual Machine'],
  ['geography.country', 'Country'],
  ['geography.usState', 'US State'],
];

/** Line keys whose model column has another name. */
const COLUMN_OF_KEY: Readonly<Record<string, string>> = {
  'Java Runtime Version': 'javaRuntime',
  'Java AWT Graphics Environment': 'javaGraphics',
};

const LICENSE_BITS: Readonly<Record<string, number>> = {
  'licenseStatus.activated': 1,
  'licenseStatus.allowed': 2,
  'licenseStatus.blocked': 4,
  'licenseStatus.expired': 8,
};
const HAS_KEY = 128;

/**
 * License flags per client, copied from the registry the first time a product's lines are needed. Lines of past days
 * are history: a later registry edit must not rewrite files already listed with their sizes
 * (docs/interface.md "File listings and names").
 */
function licenseSnapshot(pd: ProductData): Uint8Array {
  const out = new Uint8Array(pd.n);
  const records = pd.registry.records;
  for (let i = 0; i < pd.n; i++) {
    const s = records[pd.licenseKeyIndex[i]!]?.licenseStatus;
    if (!s) continue;
    out[i] = HAS_KEY | (s.activated ? 1 : 0) | (s.allowed ? 2 : 0) | (s.blocked ? 4 : 0) | (s.expired ? 8 : 0);
  }
  return out;
}

type CellReader = (i: number, day: Day) => string;

function stringCell(col: StringColumn | undefined): CellReader {
  return col ? (i) => stringAt(col, i) ?? '' : () => '';
}

function numberCell(col: NumberColumn | undefined): CellReader {
  return col
    ? (i) => {
        const v = col.values[i]!;
        return Number.isNaN(v) ? '' : String(v);
      }
    : () => '';
}

function buildReaders(pd: ProductData): CellReader[] {
  const str = (name: string) => {
    const c = pd.columns.get(name);
    return c?.kind === 'string' ? c : undefined;
  };
  const num = (name: string) => {
    const c = pd.columns.get(name);
    return c?.kind === 'number' ? c : undefined;
  };
  const license = licenseSnapshot(pd);
  const latestVersion = stringCell(str('prodVersion'));
  const latestBuild = stringCell(str('prodBuild'));
  const installVersion = stringCell(pd.installVersion);
  const installBuild = stringCell(pd.installBuild);
  const width = num('resolutionWidth');
  const height = num('resolutionHeight');
  // Version and build as of the line's day: the install value until the client upgraded, the latest after.
  const upgraded = (i: number, day: Day) => day >= pd.upgradeDay[i]!;

  return CLIENT_FIELDS.slice(1).map(([key]): CellReader => {
    const bit = LICENSE_BITS[key];
    if (bit !== undefined)
      return (i) => {
        const f = license[i]!;
        return f & HAS_KEY ? (f & bit ? 'Y' : 'N') : '';
      };
    switch (key) {
      case 'clientId':
        return (i) => pd.clientIds[i]!;
      case 'prodVersion':
        return (i, day) => (upgraded(i, day) ? latestVersion(i, day) : installVersion(i, day));
      case 'prodBuild':
        return (i, day) => (upgraded(i, day) ? latestBuild(i, day) : installBuild(i, day));
      case 'resolution':
        return (i) => {
          const w = width?.values[i] ?? Number.NaN;
          const h = height?.values[i] ?? Number.NaN;
          return Number.isNaN(w) || Number.isNaN(h) ? '' : `${w}x${h}`;
        };
    }
    const name = COLUMN_OF_KEY[key] ?? key;
    return pd.columns.get(name)?.kind === 'number' ? numberCell(num(name)) : stringCell(str(name));
  });
}

const readersOf = new WeakMap<ProductData, CellReader[]>();

/** Cells `clientId` … `geography.usState` of client i as of `day` (the timestamp cell is the caller's). */
export function clientCells(pd: ProductData, i: number, day: Day): string[] {
  let readers = readersOf.get(pd);
  if (!readers) {
    readers = buildReaders(pd);
    readersOf.set(pd, readers);
  }
  const out = new Array<string>(readers.length);
  for (let k = 0; k < readers.length; k++) out[k] = readers[k]!(i, day);
  return out;
}
