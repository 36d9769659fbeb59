/**
 * Deterministic synthetic data: the same (seed, clients, today, products) always yields the same data set, byte for
 * byte, and a product's data does not depend on which other products are served.
 * Clients are drawn with one seeded stream per product; everything per-day is derived later by hashing.
 */
import { usageBetween } from './activity.ts';
import { CUSTOM_PROPERTY_IDS, GEOGRAPHY, GPUS, OS_CATALOGUE, US_STATES } from './catalogue.ts';
import { numberColumn, StringColumnBuilder } from './columns.ts';
import type { Day } from './dates.ts';
import { plantedEpisodes } from './episodes.ts';
import { generateRegistry } from './license-registry.ts';
import type { Column, PlantedEpisode, Product, ProductData, TrackedEvent } from './model.ts';
import { plantEpisodes } from './plant.ts';
import { CAMPAIGNS, EVENT_SEEDS, type ProductSpec, productDefinitions, RELEASES } from './products.ts';
import { hash3, Rng } from './rng.ts';

/** About two years of history. */
export const HISTORY_DAYS = 730;

export interface GenerateOptions {
  seed: number;
  /** Clients of the first product; the others get a share of it (at least 40). */
  clients: number;
  today: Day;
  /** Least number of keys in each product's license registry; keys beyond the generated ones are bulk keys. */
  registryKeys?: number;
  /** Products to serve besides the built-in ones (productDefinitions). */
  products?: readonly ProductSpec[] | undefined;
}

export function generateAll(opts: GenerateOptions): ProductData[] {
  const episodes = plantedEpisodes(opts.seed, opts.today);
  return productDefinitions(opts.products).map(({ clientShare, seedKey, ...product }) => {
    const seed = hash3(opts.seed, seedKey.key, seedKey.salt);
    const own = episodes.filter((e) => e.productId === product.productId);
    const pd = generateProduct(product, Math.max(40, Math.round(opts.clients * clientShare)), seed, opts.today, own);
    const reg = pd.registry;
    reg.bulk = {
      count: Math.max(0, (opts.registryKeys ?? 0) - reg.records.length),
      seed,
      today: pd.today,
      overrides: new Map(),
    };
    return pd;
  });
}

const HEX_CODES = Array.from('0123456789ABCDEF', (c) => c.charCodeAt(0));
const idCodes: number[] = [];
/**
 * `prefix` + two 32-bit words as 16 upper-case hex digits, built as one flat string from character codes: ids are
 * made millions of times at start-up, and concatenated pieces would be slower and stay in memory as string ropes.
 */
function hexId(prefix: string, hi: number, lo: number): string {
  idCodes.length = 0;
  for (const ch of prefix) idCodes.push(ch.charCodeAt(0));
  for (let k = 28; k >= 0; k -= 4) idCodes.push(HEX_CODES[(hi >>> k) & 15]!);
  for (let k = 28; k >= 0; k -= 4) idCodes.push(HEX_CODES[(lo >>> k) & 15]!);
  return String.fromCharCode(...idCodes);
}
const EMPTY: readonly number[] = Object.freeze([]);

function randomWord(rng: Rng, level: number): number {
  const a = rng.u32();
  if (level === 2) return a;
  const b = rng.u32();
  if (level === 1) return a & b;
  if (level === 3) return a | b;
  const c = rng.u32();
  return level === 0 ? a & b & c : a | b | c;
}

export function generateProduct(
  product: Product,
  n: number,
  seed: number,
  today: Day,
  episodes: readonly PlantedEpisode[] = [],
): ProductData {
  const rng = new Rng(seed);
  const firstDay = today - HISTORY_DAYS - 3;
  const words = Math.ceil((today - firstDay + 1) / 32);

  const ids = new Set<string>();
  while (ids.size < n) {
    const hi = rng.u32();
    ids.add(hexId('', hi, rng.u32()));
  }
  const clientIds = [...ids].sort();

  const installDay = new Int32Array(n);
  const lastSeenDay = new Int32Array(n);
  const activity = new Uint32Array(n * words);
  const sessionsCap = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const install = today - Math.floor(HISTORY_DAYS * (1 - Math.sqrt(rng.next())));
    const kind = rng.next();
    let last: number;
    if (kind < 0.3) last = install + rng.int(0, 14);
    else if (kind < 0.6) last = install + Math.floor(-Math.log(1 - rng.next()) * 120);
    else last = today - rng.int(0, 6);
    last = Math.min(today, Math.max(install, last));
    installDay[i] = install;
    lastSeenDay[i] = last;
    sessionsCap[i] = rng.weighted([1, 2, 3, 4, 5, 6], [30, 25, 20, 12, 8, 5]);
    const level = rng.weighted([0, 1, 2, 3, 4], [2, 3, 3, 2, 1]);
    const a = install - firstDay;
    const b = last - firstDay;
    const base = i * words;
    for (let w = a >>> 5; w <= b >>> 5; w++) {
      let word = randomWord(rng, level);
      if (w === a >>> 5) word &= 0xffffffff << (a & 31);
      if (w === b >>> 5) word &= 0xffffffff >>> (31 - (b & 31));
      activity[base + w] = word >>> 0;
    }
    activity[base + (a >>> 5)]! |= 1 << (a & 31);
    activity[base + (b >>> 5)]! |= 1 << (b & 31);
  }

  const registry = generateRegistry(rng, n, today, installDay, lastSeenDay);
  const columns = new Map<string, Column>();
  const versions = generateVersions(rng, n, today, installDay, lastSeenDay, columns);
  generateSystemColumns(rng, n, product, columns);

  const events: TrackedEvent[] = EVENT_SEEDS.map(({ firstSeenOffset, useChance: _u, ...e }) => ({
    ...e,
    dateFirstSeen: firstDay + firstSeenOffset,
  }));
  const eventPerDay = new Uint8Array(n * events.length);
  const privacy = new Uint8Array(n);
  const deliveries: (readonly number[])[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const heavy = rng.chance(0.15);
    EVENT_SEEDS.forEach((e, k) => {
      if (rng.chance(e.useChance)) eventPerDay[i * events.length + k] = heavy ? rng.int(3, 20) : rng.int(1, 3);
    });
    let p = 0;
    if (rng.chance(0.05)) p |= 2 | (rng.chance(0.6) ? 1 : 0);
    if (rng.chance(0.02)) p |= 8 | (rng.chance(0.5) ? 4 : 0);
    privacy[i] = p;
    if (rng.chance(0.3)) {
      const got: number[] = [];
      CAMPAIGNS.forEach((_c, k) => {
        if (rng.chance(0.35)) got.push(k);
      });
      deliveries[i] = got.length > 0 ? got : EMPTY;
    } else deliveries[i] = EMPTY;
  }

  const pd: ProductData = {
    product,
    n,
    today,
    firstDay,
    words,
    clientIds,
    installDay,
    lastSeenDay,
    activity,
    sessionsCap,
    lifetimeActiveDays: new Uint32Array(n),
    lifetimeSessions: new Uint32Array(n),
    lifetimeRuntimeMinutes: new Uint32Array(n),
    columns,
    ...versions,
    licenseKeyIndex: registry.clientKey,
    privacy,
    events,
    eventPerDay,
    campaigns: [...CAMPAIGNS],
    deliveries,
    registry: registry.registry,
    seed,
    episodes,
    surge: undefined,
  };
  plantEpisodes(pd);
  finishClientColumns(pd, registry.clientType);
  return pd;
}

/** Install version follows the release calendar; most clients that stay around upgrade to a later release. */
function generateVersions(
  rng: Rng,
  n: number,
  today: Day,
  installDay: Int32Array,
  lastSeenDay: Int32Array,
  columns: Map<string, Column>,
) {
  const releaseDay = RELEASES.map((r) => today - r.daysAgo);
  const latestAt = (day: Day) => {
    let k = 0;
    while (k + 1 < releaseDay.length && (releaseDay[k + 1] ?? 0) <= day) k++;
    return k;
  };
  const build = (k: number, patch: number) => `${RELEASES[k]!.version}.${1200 + k * 57 + patch}`;
  const installVersion = new StringColumnBuilder(n);
  const installBuild = new StringColumnBuilder(n);
  const version = new StringColumnBuilder(n);
  const buildCol = new StringColumnBuilder(n);
  const upgradeDay = new Int32Array(n).fill(-1);
  for (let i = 0; i < n; i++) {
    let k = latestAt(installDay[i]!);
    if (k > 0 && rng.chance(0.12)) k -= 1;
    installVersion.set(i, RELEASES[k]!.version);
    installBuild.set(i, build(k, 0));
    let latest = k;
    let patch = 0;
    const newest = latestAt(lastSeenDay[i]!);
    if (newest > k && rng.chance(0.75)) {
      latest = newest;
      upgradeDay[i] = Math.min(lastSeenDay[i]!, releaseDay[newest]! + rng.int(0, 30));
    } else if (rng.chance(0.3)) patch = 1;
    version.set(i, RELEASES[latest]!.version);
    buildCol.set(i, build(latest, patch));
  }
  columns.set('prodVersion', version.build());
  columns.set('prodBuild', buildCol.build());
  return { installVersion: installVersion.build(), installBuild: installBuild.build(), upgradeDay };
}

function pickOr<T>(rng: Rng, items: readonly T[], weights: readonly number[], nullChance: number): T | null {
  return rng.chance(nullChance) ? null : rng.weighted(items, weights);
}

const CUSTOM_VALUES: Record<string, readonly string[]> = {
  Plan: ['Basic', 'Team', 'Enterprise'],
  Reseller: ['Direct', 'Acme Reseller', 'Globex Partners'],
  Deployment: ['On-premises', 'Private cloud', 'Public cloud'],
};

// Drawn once per client: built once here rather than per call.
const OS_WEIGHTS = OS_CATALOGUE.map((o) => o.weight);
const GEO_WEIGHTS = GEOGRAPHY.map((g) => g.weight);
const PC_GPUS = GPUS.slice(0, -1);
const PC_GPU_WEIGHTS = [10, 12, 4, 6, 3, 18, 15];

function generateSystemColumns(rng: Rng, n: number, product: Product, columns: Map<string, Column>): void {
  const s = (_name: string) => new StringColumnBuilder(n);
  const str = {
    prodEdition: s('prodEdition'),
    prodLanguage: s('prodLanguage'),
    osLanguage: s('osLanguage'),
    osWordLength: s('osWordLength'),
    cpuType: s('cpuType'),
    formFactor: s('formFactor'),
    dotNetVersion: s('dotNetVersion'),
    windowsFullBuild: s('windowsFullBuild'),
    vm: s('vm'),
    javaVersion: s('javaVersion'),
    javaVendor: s('javaVendor'),
    javaRuntime: s('javaRuntime'),
    javaGraphics: s('javaGraphics'),
    javaVmVersion: s('javaVmVersion'),
    javaVmName: s('javaVmName'),
    'os.platform': s('os.platform'),
    'os.version': s('os.version'),
    'os.edition': s('os.edition'),
    'geography.continent': s('geography.continent'),
    'geography.country': s('geography.country'),
    'geography.usState': s('geography.usState'),
    'gpu.vendor': s('gpu.vendor'),
    'gpu.model': s('gpu.model'),
  };
  const machineId = new StringColumnBuilder(n, true);
  const custom = Object.entries(product.customProperties).map(([id, label]) => ({
    id,
    values: CUSTOM_VALUES[label] ?? ['A', 'B', 'C'],
    col: new StringColumnBuilder(n),
  }));
  const num = {
    cpuCores: numberColumn(n),
    ram: numberColumn(n),
    displayCount: numberColumn(n),
    resolutionWidth: numberColumn(n),
    resolutionHeight: numberColumn(n),
    screenPpi: numberColumn(n),
    javaVmRam: numberColumn(n),
  };
  const resolutions = [
    [1920, 1080, 96],
    [2560, 1440, 109],
    [3840, 2160, 163],
    [1366, 768, 96],
    [1440, 900, 127],
    [2880, 1800, 220],
  ] as const;
  let lastMachine = '';
  for (let i = 0; i < n; i++) {
    str.prodEdition.set(i, rng.weighted(['Standard', 'Professional', 'Enterprise', 'Community'], [40, 30, 10, 20]));
    str.prodLanguage.set(
      i,
      pickOr(rng, ['en', 'de', 'fr', 'ja', 'es', 'pt-BR', 'zh-CN'], [50, 12, 8, 8, 7, 5, 10], 0.04),
    );
    str.osLanguage.set(
      i,
      pickOr(
        rng,
        ['en-US', 'en-GB', 'de-DE', 'fr-FR', 'ja-JP', 'es-ES', 'pt-BR', 'zh-CN'],
        [40, 8, 12, 8, 8, 7, 5, 12],
        0.03,
      ),
    );
    const os = rng.weighted(OS_CATALOGUE, OS_WEIGHTS);
    const osNull = rng.chance(0.01);
    str['os.platform'].set(i, osNull ? null : os.platform);
    str['os.version'].set(i, osNull ? null : os.version);
    const edition = rng.pick(os.editions);
    str['os.edition'].set(i, osNull || edition === '' ? null : edition);
    const windows = os.platform === 'Windows';
    str.osWordLength.set(i, rng.chance(0.94) ? '64-bit' : '32-bit');
    str.cpuType.set(
      i,
      os.platform === 'macOS'
        ? rng.pick(['Apple M2', 'Apple M3'])
        : rng.weighted(
            ['Intel Core i7', 'Intel Core i5', 'AMD Ryzen 7', 'AMD Ryzen 5', 'Intel Xeon'],
            [30, 25, 20, 15, 10],
          ),
    );
    str.formFactor.set(i, rng.weighted(['Desktop', 'Laptop', 'Server', 'Tablet'], [40, 45, 10, 5]));
    str.dotNetVersion.set(i, windows ? rng.pick(['4.8', '4.8;3.5 SP1', '8.0;4.8', '9.0;8.0;4.8']) : null);
    str.windowsFullBuild.set(
      i,
      windows ? `10.0.${rng.pick([19045, 22631, 26100, 20348])}.${rng.int(1000, 5000)}` : null,
    );
    str.vm.set(i, rng.weighted(['None', 'VMware', 'Hyper-V', 'VirtualBox', 'Parallels'], [85, 6, 5, 2, 2]));
    if (rng.chance(0.2)) {
      const jv = rng.pick(['17.0.13', '21.0.5', '11.0.25']);
      str.javaVersion.set(i, jv);
      str.javaVendor.set(i, rng.pick(['Eclipse Adoptium', 'Oracle Corporation', 'Amazon.com Inc.']));
      str.javaRuntime.set(i, `${jv}+11`);
      str.javaGraphics.set(i, windows ? 'sun.awt.Win32GraphicsEnvironment' : 'sun.awt.X11GraphicsEnvironment');
      str.javaVmVersion.set(i, `${jv}+11-LTS`);
      str.javaVmName.set(i, 'OpenJDK 64-Bit Server VM');
      num.javaVmRam.values[i] = rng.pick([512, 1024, 2048, 4096]);
    }
    const geoNull = rng.chance(0.02);
    const geo = rng.weighted(GEOGRAPHY, GEO_WEIGHTS);
    str['geography.continent'].set(i, geoNull ? null : geo.continent);
    str['geography.country'].set(i, geoNull ? null : geo.country);
    str['geography.usState'].set(i, !geoNull && geo.country === 'US' && rng.chance(0.9) ? rng.pick(US_STATES) : null);
    if (!rng.chance(0.04)) {
      const gpu = os.platform === 'macOS' ? GPUS[GPUS.length - 1]! : rng.weighted(PC_GPUS, PC_GPU_WEIGHTS);
      str['gpu.vendor'].set(i, gpu.vendor);
      str['gpu.model'].set(i, gpu.model);
    }
    num.cpuCores.values[i] = rng.weighted([2, 4, 6, 8, 12, 16, 24, 32], [5, 20, 15, 25, 15, 12, 5, 3]);
    num.ram.values[i] = rng.weighted([4096, 8192, 16384, 32768, 65536], [8, 30, 35, 20, 7]);
    num.displayCount.values[i] = rng.weighted([1, 2, 3], [60, 32, 8]);
    if (!rng.chance(0.02)) {
      const [w, h, ppi] = rng.pick(resolutions);
      num.resolutionWidth.values[i] = w;
      num.resolutionHeight.values[i] = h;
      num.screenPpi.values[i] = ppi;
    }
    let machine = lastMachine;
    if (i === 0 || !rng.chance(0.05)) {
      const hi = rng.u32();
      machine = hexId('M', hi, rng.u32());
    }
    machineId.set(i, machine);
    lastMachine = machine;
    for (const c of custom) c.col.set(i, rng.chance(0.25) ? null : rng.pick(c.values));
  }
  for (const [name, b] of Object.entries(str)) columns.set(name, b.build());
  for (const [name, c] of Object.entries(num)) columns.set(name, c);
  columns.set('machineId', machineId.build());
  for (const c of custom) if (CUSTOM_PROPERTY_IDS.includes(c.id)) columns.set(c.id, c.col.build());
}

/** Columns that depend on activity or the registry: lifetime totals, dates, license type/key/status. */
function finishClientColumns(pd: ProductData, clientType: StringColumnBuilder): void {
  const runtime = numberColumn(pd.n);
  const sessions = numberColumn(pd.n);
  for (let i = 0; i < pd.n; i++) {
    const t = usageBetween(pd, i, pd.installDay[i]!, pd.lastSeenDay[i]!);
    pd.lifetimeActiveDays[i] = t.activeDays;
    pd.lifetimeSessions[i] = t.sessions;
    pd.lifetimeRuntimeMinutes[i] = t.runtimeMinutes;
    runtime.values[i] = t.runtimeMinutes;
    sessions.values[i] = t.sessions;
  }
  pd.columns.set('lifetimeRuntimeMinutes', runtime);
  pd.columns.set('lifetimeSessionCount', sessions);
  pd.columns.set('dateInstalled', { kind: 'date', days: pd.installDay });
  pd.columns.set('dateLastSeen', { kind: 'date', days: pd.lastSeenDay });
  pd.columns.set('licenseType', clientType.build());
  const key = new Uint32Array(pd.n);
  for (let i = 0; i < pd.n; i++) key[i] = pd.licenseKeyIndex[i]! + 1;
  pd.columns.set('licenseKey', { kind: 'string', dict: pd.registry.records.map((r) => r.licenseKey), codes: key });
  const ids = new Uint32Array(pd.n);
  for (let i = 0; i < pd.n; i++) ids[i] = i + 1;
  pd.columns.set('clientId', { kind: 'string', dict: pd.clientIds, codes: ids });
}
