/**
 * The planted episodes (emulator/data/episodes.ts) over real sockets: each one changes its figure by its size on its
 * days, in every operation that reports that figure, and the figure is back to normal after it. Two seeds, so the
 * episodes land in both products that carry them.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDay, parseDay } from '../../emulator/data/dates.ts';
import { PRODUCT_DEFINITIONS } from '../../emulator/data/products.ts';
import { parseCsv } from '../../emulator/files/csv.ts';
import {
  type Emulator,
  type EventSurge,
  type ExceptionSpike,
  type PlantedEpisode,
  plantedEpisodes,
  type VersionDrop,
} from '../../emulator/index.ts';
import { signedIn, startTestEmulator, TEST_TODAY, type TestSession } from '../helpers/emulator-session.ts';

const TODAY = parseDay(TEST_TODAY)!;
const CLIENTS = 5000;
const SEEDS = [7, 8];

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return (s[(s.length - 1) >> 1]! + s[s.length >> 1]!) / 2;
};
const days = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, k) => from + k);
const date = formatDay;

function episode<K extends PlantedEpisode['kind']>(eps: readonly PlantedEpisode[], kind: K) {
  return eps.find((e) => e.kind === kind) as Extract<PlantedEpisode, { kind: K }>;
}

describe('plantedEpisodes', () => {
  it('plants one episode of each kind at fixed distances from today, the same for the same seed', () => {
    const eps = plantedEpisodes(7, TEST_TODAY);
    expect(plantedEpisodes(7, TODAY)).toEqual(eps);
    expect(eps.map((e) => e.kind)).toEqual(['exceptionSpike', 'versionDrop', 'eventSurge']);
    const spike = episode(eps, 'exceptionSpike');
    expect([TODAY - spike.startDay, TODAY - spike.endDay, spike.factor]).toEqual([13, 10, 6]);
    const drop = episode(eps, 'versionDrop');
    expect([TODAY - drop.startDay, TODAY - drop.endDay, drop.factor]).toEqual([35, 22, 0.5]);
    const surge = episode(eps, 'eventSurge');
    expect([TODAY - surge.startDay, TODAY - surge.endDay, surge.factor]).toEqual([21, 8, 2]);
    for (const e of eps) {
      expect(e.startDate).toBe(date(e.startDay));
      expect(e.endDate).toBe(date(e.endDay));
    }
  });

  it('picks the products, exception types, versions and events by the seed', () => {
    const picks = (f: (eps: PlantedEpisode[]) => string) =>
      new Set(Array.from({ length: 30 }, (_, seed) => f(plantedEpisodes(seed, TEST_TODAY))));
    expect(picks((eps) => episode(eps, 'exceptionSpike').productId)).toEqual(new Set(['12345678901', '9876543210']));
    expect(picks((eps) => episode(eps, 'exceptionSpike').exceptionType).size).toBeGreaterThan(2);
    expect(picks((eps) => episode(eps, 'versionDrop').version).size).toBeGreaterThan(1);
    expect(picks((eps) => episode(eps, 'eventSurge').name).size).toBeGreaterThan(2);
  });

  it('are the ones emulator/README.md names for the default seed', () => {
    const readme = readFileSync(fileURLToPath(new URL('../../emulator/README.md', import.meta.url)), 'utf8');
    const line = /Seed 1 \(the default\):.*?\ssurges in [^.]+\./s.exec(readme)?.[0].replace(/\n/g, ' ');
    const name = (id: string) => PRODUCT_DEFINITIONS.find((p) => p.productId === id)!.productName;
    const eps = plantedEpisodes(1, TEST_TODAY);
    const spike = episode(eps, 'exceptionSpike');
    const drop = episode(eps, 'versionDrop');
    const surge = episode(eps, 'eventSurge');
    expect(line).toBe(
      `Seed 1 (the default): a \`${spike.exceptionType}\` spike in ${name(spike.productId)}, version ${drop.version} ` +
        `of ${name(drop.productId)} drops, and ${surge.category}/${surge.name} surges in ${name(surge.productId)}.`,
    );
  });

  it('rejects a today that is no date', () => {
    expect(() => plantedEpisodes(7, '2026-02-30')).toThrow(/today/);
  });
});

describe.each(SEEDS)('seed %i', (seed) => {
  let emu: Emulator;
  let s: TestSession;
  const eps = plantedEpisodes(seed, TEST_TODAY);
  beforeAll(async () => {
    emu = await startTestEmulator({ clients: CLIENTS, seed });
    s = await signedIn(emu);
  });
  afterAll(() => emu.close());

  it('the emulator names the episodes it planted', () => {
    expect(emu.episodes).toEqual(eps);
  });

  /** Rows of a listed export file (header first). */
  async function fileRows(api: string, fileName: string, pid: string): Promise<string[][]> {
    const r = await s.post(`${api}/getDownloadUrl`, { fileName }, pid);
    expect(r.status, r.text).toBe(200);
    const zip = new Uint8Array(await (await fetch(r.json.downloadUrl)).arrayBuffer());
    return parseCsv(new TextDecoder().decode(Object.values(unzipSync(zip))[0]!));
  }

  /** Per day of [from, to]: lines of the daily files whose `column` is `value` (0 on a day without a file). */
  async function dailyLineCounts(api: string, pid: string, from: number, to: number, column: string, value: string) {
    const list = await s.get(`${api}/listFiles`, pid);
    expect(list.status).toBe(200);
    const files = (list.json.dailyFiles ?? list.json.fileList) as { fileName: string; fileDate: string }[];
    const byDate = new Map(files.map((f) => [f.fileDate, f.fileName]));
    return Promise.all(
      days(from, to).map(async (d) => {
        const name = byDate.get(date(d));
        if (!name) return 0;
        const [header, ...rows] = await fileRows(api, name, pid);
        const at = header!.indexOf(column);
        return rows.filter((r) => r[at] === value).length;
      }),
    );
  }

  describe('exception spike', () => {
    const spike: ExceptionSpike = episode(eps, 'exceptionSpike');
    const EXC = '/v3/exceptionTracking';

    it(`lines of the type are at least ${5}× the median of the four weeks before on its days only`, async () => {
      const from = spike.startDay - 28;
      const to = spike.endDay + 7;
      const counts = await dailyLineCounts(EXC, spike.productId, from, to, 'exception.type', spike.exceptionType);
      const before = counts.slice(0, 28);
      const during = counts.slice(28, 28 + 4);
      const after = counts.slice(28 + 4);
      const usual = Math.max(1, median(before));
      for (const c of during) expect(c).toBeGreaterThanOrEqual((spike.factor - 1) * usual);
      // The spike is the only such run: every other day stays under the threshold an alert would use.
      for (const c of [...before, ...after]) expect(c).toBeLessThan((spike.factor - 1) * usual);
      expect(sum(after) / after.length).toBeLessThan(2 * usual);
    });

    it('the latest lines agree with the files on the spike days', async () => {
      const r = await s.post(`${EXC}/getLastLines`, { lineCount: 1000 }, spike.productId);
      expect(r.status).toBe(200);
      const lines = r.json.result as { timestamp: string; 'exception.type': string }[];
      const oldest = lines[0]!.timestamp.slice(0, 10);
      const covered = days(spike.startDay, spike.endDay).filter((d) => date(d) > oldest);
      expect(covered.length).toBeGreaterThan(0);
      const fromFiles = await dailyLineCounts(
        EXC,
        spike.productId,
        covered[0]!,
        covered.at(-1)!,
        'exception.type',
        spike.exceptionType,
      );
      const fromLines = covered.map(
        (d) =>
          lines.filter((l) => l.timestamp.startsWith(date(d)) && l['exception.type'] === spike.exceptionType).length,
      );
      expect(fromLines).toEqual(fromFiles);
    });
  });

  describe('version drop', () => {
    const drop: VersionDrop = episode(eps, 'versionDrop');
    const DATE_RANGE = '/v3/reporting/generic/dateRange';
    const byVersion = async (from: number, to: number) => {
      const r = await s.post(
        DATE_RANGE,
        {
          startDate: date(from),
          stopDate: date(to),
          clientStatus: ['active'],
          levels: { level1: { property: 'prodVersion' } },
        },
        drop.productId,
      );
      expect(r.status).toBe(200);
      const l1 = r.json.result.level1 as Record<string, { totals: { active: number } }>;
      return Object.fromEntries(Object.entries(l1).map(([v, n]) => [v, n.totals.active]));
    };

    it('its version loses at least 25 % of its weekly active clients in the drop, the others do not', async () => {
      const before = await byVersion(drop.startDay - 7, drop.startDay - 1);
      const first = await byVersion(drop.startDay, drop.startDay + 6);
      const second = await byVersion(drop.endDay - 6, drop.endDay);
      const after = await byVersion(drop.endDay + 1, drop.endDay + 7);
      expect(before[drop.version]).toBeGreaterThanOrEqual(10);
      for (const week of [first, second]) expect(week[drop.version]!).toBeLessThanOrEqual(0.75 * before[drop.version]!);
      expect(after[drop.version]!).toBeGreaterThan(0.85 * before[drop.version]!);
      for (const [version, active] of Object.entries(before)) {
        if (version === drop.version || active < 10) continue;
        expect(first[version]!, version).toBeGreaterThan(0.75 * active);
      }
    });

    it('every report of active clients shows the same drop: filters, usage distribution, daily client data', async () => {
      const filters = { prodVersion: { type: 'string', value: drop.version } };
      const range = { startDate: drop.startDate, stopDate: drop.endDate };
      const segment = (await byVersion(drop.startDay, drop.endDay))[drop.version];
      const filtered = await s.post(
        DATE_RANGE,
        { ...range, clientStatus: ['active'], globalFilters: filters },
        drop.productId,
      );
      expect(filtered.json.result.totals.active).toBe(segment);
      const dist = await s.post(
        '/v3/reporting/engagement/usageDistribution',
        { ...range, globalFilters: filters },
        drop.productId,
      );
      const users = Object.values(dist.json.result.activeDays as Record<string, { users: number }>);
      expect(sum(users.map((u) => u.users))).toBe(segment);

      let withDays = 0;
      let dayCount = 0;
      let startAtClientId: string | undefined;
      for (;;) {
        const r = await s.post(
          '/v3/reporting/clientPropertyList',
          {
            globalFilters: filters,
            startAtClientId,
            retDailyData: { ...range, properties: ['prodVersion'] },
          },
          drop.productId,
        );
        expect(r.status).toBe(200);
        for (const item of r.json.result as { dailyData: { prodVersion: string }[] }[]) {
          if (item.dailyData.length > 0) withDays++;
          dayCount += item.dailyData.length;
          // Everyone in the version's segment runs it by the drop: it picks versions released 30+ days before.
          for (const d of item.dailyData) expect(d.prodVersion).toBe(drop.version);
        }
        if (r.json.reachedEnd) break;
        startAtClientId = r.json.nextClientId;
      }
      expect(withDays).toBe(segment);
      const daily = await s.post(
        DATE_RANGE,
        { ...range, clientStatus: ['active'], globalFilters: filters, dateSplit: 'day' },
        drop.productId,
      );
      const perDay = Object.values(daily.json.result as Record<string, { active: number }>).map((x) => x.active);
      expect(sum(perDay)).toBe(dayCount);
    });
  });

  describe('event surge', () => {
    const surge: EventSurge = episode(eps, 'eventSurge');
    const event = { category: surge.category, name: surge.name };
    const other =
      surge.category === 'File' && surge.name === 'Open'
        ? { category: 'Edit', name: 'Undo' }
        : { category: 'File', name: 'Open' };
    const timeline = async (from: number, to: number) => {
      const r = await s.post(
        '/v3/reporting/eventTracking/basic/timeline',
        {
          startDate: date(from),
          stopDate: date(to),
          dateSplit: 'day',
          dataView: 'usageCounts',
          events: [event, other],
        },
        surge.productId,
      );
      expect(r.status, r.text).toBe(200);
      const t = r.json.result as Record<string, { value: number }[]>;
      return [0, 1].map((k) => days(from, to).map((d) => t[date(d)]![k]!.value));
    };
    const dataTableCount = async (from: number, to: number) => {
      const r = await s.post(
        '/v3/reporting/eventTracking/basic/dataTable',
        { startDate: date(from), stopDate: date(to) },
        surge.productId,
      );
      expect(r.status).toBe(200);
      type Category = {
        category: string | null;
        categoryEventsData: Record<string, { eventUsage: { cumulativeUsageCount: number } }>;
      };
      const cat = (r.json.result as Category[]).find((c) => c.category === surge.category)!;
      return cat.categoryEventsData[surge.name]!.eventUsage.cumulativeUsageCount;
    };
    const lifetimeCount = async (stop: number) => {
      const r = await s.post(
        '/v3/reporting/eventTracking/lifetime/dataTable',
        { startDate: '2020-01-01', stopDate: date(stop), events: [event] },
        surge.productId,
      );
      expect(r.status, r.text).toBe(200);
      return (r.json.result as { eventCount: number }[])[0]!.eventCount;
    };

    it('doubles the event’s occurrences on its days, not another event’s, and ends with it', async () => {
      const [mine, theirs] = await timeline(surge.startDay - 14, surge.endDay + 7);
      const window = (xs: number[], from: number, to: number) =>
        sum(xs.slice(from - (surge.startDay - 14), to - (surge.startDay - 14) + 1));
      const ratio = (xs: number[]) =>
        window(xs, surge.startDay, surge.endDay) / window(xs, surge.startDay - 14, surge.startDay - 1);
      expect(ratio(mine!)).toBeGreaterThan(1.8);
      expect(ratio(mine!)).toBeLessThan(2.2);
      expect(ratio(theirs!)).toBeGreaterThan(0.85);
      expect(ratio(theirs!)).toBeLessThan(1.15);
      const afterward =
        window(mine!, surge.endDay + 1, surge.endDay + 7) / window(mine!, surge.startDay - 7, surge.startDay - 1);
      expect(afterward).toBeGreaterThan(0.8);
      expect(afterward).toBeLessThan(1.2);
    });

    it('the data table, the lifetime table and the client list count the same occurrences', async () => {
      const [mine] = await timeline(surge.startDay, surge.endDay);
      const inSurge = await dataTableCount(surge.startDay, surge.endDay);
      expect(inSurge).toBe(sum(mine!));
      expect((await lifetimeCount(surge.endDay)) - (await lifetimeCount(surge.startDay - 1))).toBe(inSurge);

      let listed = 0;
      let startAtClientId: string | undefined;
      for (;;) {
        const r = await s.post(
          '/v3/reporting/clientPropertyList',
          { properties: ['lifetimeEventUsage'], startAtClientId },
          surge.productId,
        );
        expect(r.status).toBe(200);
        for (const item of r.json.result as { lifetimeEventUsage: { eventName: string; eventCount: number }[] }[])
          listed += sum(item.lifetimeEventUsage.filter((u) => u.eventName === surge.name).map((u) => u.eventCount));
        if (r.json.reachedEnd) break;
        startAtClientId = r.json.nextClientId;
      }
      expect(listed).toBe(await lifetimeCount(TODAY));
    });

    it('raw events name the event about twice as often on its days (where the product exports raw data)', async () => {
      const product = emu.products.find((p) => p.productId === surge.productId)!;
      const RAW = '/v3/rawEvents/download';
      if (!product.rawDataExport) {
        expect((await s.get(`${RAW}/listFiles`, surge.productId)).status).toBe(403);
        return;
      }
      const counts = await dailyLineCounts(
        RAW,
        surge.productId,
        surge.startDay - 14,
        surge.endDay,
        'event.name',
        surge.name,
      );
      const ratio = sum(counts.slice(14)) / sum(counts.slice(0, 14));
      expect(ratio).toBeGreaterThan(1.6);
      expect(ratio).toBeLessThan(2.4);
    });
  });
});
