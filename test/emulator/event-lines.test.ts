import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isActive } from '../../emulator/data/activity.ts';
import { formatTimestamp, parseDay } from '../../emulator/data/dates.ts';
import { type ProductData, type StringColumn, stringAt } from '../../emulator/data/model.ts';
import type { Emulator } from '../../emulator/index.ts';
import { signedIn, startTestEmulator, type TestSession } from '../helpers/emulator-session.ts';

let emu: Emulator;
let s: TestSession;
beforeAll(async () => {
  emu = await startTestEmulator();
  s = await signedIn(emu);
});
afterAll(() => emu.close());

const CUST = '/v3/customEventTracking/getLastLines';
const EXC = '/v3/exceptionTracking/getLastLines';

const CLIENT_KEYS = [
  'timestamp',
  'clientId',
  'prodEdition',
  'prodVersion',
  'prodBuild',
  'prodLanguage',
  'licenseType',
  'licenseStatus.allowed',
  'licenseStatus.blocked',
  'licenseStatus.activated',
  'licenseStatus.expired',
  'os.version',
  'osWordLength',
  'osLanguage',
  'windowsFullBuild',
  'cpuType',
  'cpuCores',
  'ram',
  'displayCount',
  'resolution',
  'dotNetVersion',
  'gpu.model',
  'formFactor',
  'javaVmVersion',
  'javaVersion',
  'javaVmName',
  'javaVendor',
  'Java Runtime Version',
  'Java AWT Graphics Environment',
  'javaVmRam',
  'vm',
  'geography.country',
  'geography.usState',
];

type Line = Record<string, string>;

const pdOf = (productId = s.productId) => emu.state.products.get(productId)!;
const str = (pd: ProductData, name: string) => (i: number) => stringAt(pd.columns.get(name) as StringColumn, i) ?? '';
const num = (pd: ProductData, name: string) => (i: number) => {
  const c = pd.columns.get(name);
  const v = c?.kind === 'number' ? c.values[i]! : Number.NaN;
  return Number.isNaN(v) ? '' : String(v);
};
const flag = (v: boolean | undefined) => (v === undefined ? '' : v ? 'Y' : 'N');

/** Checks a line's client cells against the data model, computed here independently of the emulator's code. */
function expectClientCells(pd: ProductData, line: Line): void {
  const i = pd.clientIds.indexOf(line.clientId!);
  expect(i).toBeGreaterThanOrEqual(0);
  expect(line.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
  const day = parseDay(line.timestamp!.slice(0, 10))!;
  expect(isActive(pd, i, day)).toBe(true);
  const upgraded = day >= pd.upgradeDay[i]!;
  expect(line.prodVersion).toBe(upgraded ? str(pd, 'prodVersion')(i) : (stringAt(pd.installVersion, i) ?? ''));
  expect(line.prodBuild).toBe(upgraded ? str(pd, 'prodBuild')(i) : (stringAt(pd.installBuild, i) ?? ''));
  const status = pd.registry.records[pd.licenseKeyIndex[i]!]?.licenseStatus;
  expect(line['licenseStatus.allowed']).toBe(flag(status?.allowed));
  expect(line['licenseStatus.blocked']).toBe(flag(status?.blocked));
  expect(line['licenseStatus.activated']).toBe(flag(status?.activated));
  expect(line['licenseStatus.expired']).toBe(flag(status?.expired));
  const w = num(pd, 'resolutionWidth')(i);
  expect(line.resolution).toBe(w === '' ? '' : `${w}x${num(pd, 'resolutionHeight')(i)}`);
  for (const k of ['prodEdition', 'prodLanguage', 'licenseType', 'os.version', 'gpu.model', 'geography.country'])
    expect(line[k]).toBe(str(pd, k)(i));
  for (const k of ['geography.usState', 'dotNetVersion', 'windowsFullBuild', 'vm', 'javaVersion'])
    expect(line[k]).toBe(str(pd, k)(i));
  expect(line['Java Runtime Version']).toBe(str(pd, 'javaRuntime')(i));
  expect(line['Java AWT Graphics Environment']).toBe(str(pd, 'javaGraphics')(i));
  for (const k of ['cpuCores', 'ram', 'displayCount', 'javaVmRam']) expect(line[k]).toBe(num(pd, k)(i));
}

describe('customEventsLastLines', () => {
  it('returns the field names in the customEventsLastLines order with their labels', async () => {
    const r = await s.post(CUST, { lineCount: 3 });
    expect(r.status).toBe(200);
    expect(Object.keys(r.json.fieldNames)).toEqual([...CLIENT_KEYS, 'event.category', 'event.name', 'event.data']);
    expect(r.json.fieldNames).toMatchObject({
      timestamp: 'Timestamp',
      clientId: 'Client ID',
      'os.version': 'OS Type',
      resolution: 'Screen Resolution',
      'gpu.model': 'GPU',
      'geography.usState': 'US State',
      'event.name': 'Event Type',
      'event.data': 'Event Data',
      javaVmRam: 'Java VM RAM (MB)',
    });
    expect(r.json.result).toHaveLength(3);
  });

  it('returns the newest lines up to now, oldest first, every cell a string matching the data', async () => {
    const r = await s.post(CUST, { lineCount: 1000 });
    const lines = r.json.result as Line[];
    expect(lines).toHaveLength(1000);
    const keys = Object.keys(r.json.fieldNames);
    const pd = pdOf();
    for (const line of lines) {
      expect(Object.keys(line)).toEqual(keys);
      for (const v of Object.values(line)) expect(typeof v).toBe('string');
      expectClientCells(pd, line);
    }
    const stamps = lines.map((l) => l.timestamp!);
    expect([...stamps].sort()).toEqual(stamps);
    expect(stamps.at(-1)! <= formatTimestamp(emu.clock.now())).toBe(true);
    // Lines span more than one day here, and today's lines are part of them.
    expect(stamps[0]!.slice(0, 10) < stamps.at(-1)!.slice(0, 10)).toBe(true);
    expect(stamps.at(-1)!.slice(0, 10)).toBe('2026-11-20');
    // A shorter request returns the newest part of the longer one.
    const short = await s.post(CUST, { lineCount: '25' });
    expect(short.json.result).toEqual(lines.slice(-25));
    expect(new Set(lines.map((l) => l['event.category'])).size).toBeGreaterThan(3);
  });

  it('lets the open day grow with the clock', async () => {
    const todayLines = async () =>
      ((await s.post(CUST, { lineCount: 1000 })).json.result as Line[]).filter((l) =>
        l.timestamp!.startsWith('2026-11-20'),
      );
    const before = await todayLines();
    emu.clock.advance(6 * 3_600_000);
    try {
      s = await signedIn(emu); // six idle hours ended the session
      const after = await todayLines();
      expect(after.length).toBeGreaterThan(before.length);
      expect(after.slice(0, before.length)).toEqual(before);
      expect(after.at(-1)!.timestamp! <= formatTimestamp(emu.clock.now())).toBe(true);
    } finally {
      emu.clock.advance(-6 * 3_600_000);
      s = await signedIn(emu);
    }
  });

  it('validates lineCount', async () => {
    const cases: [unknown, string][] = [
      [{}, 'lineCount: required'],
      [{ lineCount: 0 }, 'lineCount: must be ≥ 1'],
      [{ lineCount: 1001 }, 'lineCount: must be ≤ 1000'],
      [{ lineCount: 2.5 }, 'lineCount: must be an integer'],
      [{ lineCount: 'ten' }, 'lineCount: must be an integer'],
      [{ lineCount: '0' }, 'lineCount: must be ≥ 1'],
      [{ lineCount: true }, 'lineCount: must be a number'],
    ];
    for (const [body, message] of cases) {
      const r = await s.post(CUST, body);
      expect(r.status).toBe(400);
      expect(r.json).toEqual({ error: 'Bad Request', message });
    }
    expect((await s.call('POST', `${CUST}/${s.productId}`, undefined, { raw: '{"lineCount":' })).json.message).toBe(
      'body: invalid JSON',
    );
  });

  it('answers 404 for a product the user does not have', async () => {
    const r = await s.post(CUST, { lineCount: 5 }, '99999999999');
    expect(r.status).toBe(404);
    expect(r.json.error).toBe('Not Found');
  });
});

describe('exceptionsLastLines', () => {
  it('uses the exception columns and multi-line stack traces', async () => {
    const r = await s.post(EXC, { lineCount: 200 }, emu.products[1]!.productId);
    expect(r.status).toBe(200);
    expect(Object.keys(r.json.fieldNames)).toEqual([
      ...CLIENT_KEYS,
      'exception.type',
      'exception.message',
      'exception.stackTrace',
    ]);
    expect(r.json.fieldNames['exception.stackTrace']).toBe('Stack Trace');
    const lines = r.json.result as Line[];
    expect(lines).toHaveLength(200);
    const pd = pdOf(emu.products[1]!.productId);
    for (const line of lines) {
      expectClientCells(pd, line);
      expect(line['exception.stackTrace']!.startsWith(`${line['exception.type']}: ${line['exception.message']}`)).toBe(
        true,
      );
      expect(line['exception.stackTrace']).toContain('\n');
    }
    const stamps = lines.map((l) => l.timestamp!);
    expect([...stamps].sort()).toEqual(stamps);
  });

  it('validates lineCount the same way', async () => {
    const r = await s.post(EXC, { lineCount: -3 });
    expect(r.status).toBe(400);
    expect(r.json.message).toBe('lineCount: must be ≥ 1');
  });
});
