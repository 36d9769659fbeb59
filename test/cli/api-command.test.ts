/**
 * `pulse api` in-process against a real emulator: every operation id once with a minimal valid body (as
 * docs/interface.md describes it), the usage, auth, service and network exit codes, the no-echo prompt and
 * `--download`.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.ts';
import { OPERATIONS } from '../../src/api/operations.ts';
import type { ApiIo } from '../../src/cli/api-command.ts';
import { main } from '../../src/cli/main.ts';
import { signedIn, startTestEmulator, type TestSession } from '../helpers/emulator-session.ts';
import { fakeTty, KEY } from '../helpers/fake-tty.ts';

let emu: Emulator;
const liveSessions = () => emu.state.sessions.liveSessionsOf(emu.credentials.userName).length;
let wire: TestSession;
/** Sessions that are not the CLI's: the raw session below; after every run the CLI must have logged out. */
let othersSessions: number;
const dir = mkdtempSync(join(tmpdir(), 'pulse-api-'));

let offline: Promise<Run>;

beforeAll(async () => {
  emu = await startTestEmulator();
  wire = await signedIn(emu);
  othersSessions = liveSessions();
  // Started now and awaited in its test: the client's retry backoff (seconds) then overlaps the other tests.
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  offline = pulse(['productProperties'], { PULSE_BASE_URL: `http://127.0.0.1:${port}` });
});
afterAll(async () => {
  await wire?.call('POST', '/v3/auth/logout', {});
  await emu?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function pulse(args: string[], env: Record<string, string> = {}, stdin?: ApiIo['stdin']): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const io: ApiIo = {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    env: {
      PULSE_BASE_URL: emu.baseUrl,
      PULSE_ORIGIN: emu.origin,
      PULSE_USER: emu.credentials.userName,
      PULSE_PASSWORD: emu.credentials.password,
      ...env,
    },
    ...(stdin ? { stdin } : {}),
  };
  const code = await main(['api', ...args], io);
  return { code, stdout, stderr };
}

const range = { startDate: '2026-10-01', stopDate: '2026-10-31' };
const lost = { ...range, daysUntilDeclaredLost: 30, dateReportedLost: 'dateDeclaredLost' };

/** What earlier operations taught later ones: an advanced event (from listEvents) and file names (from listFiles). */
// biome-ignore lint/suspicious/noExplicitAny: outputs of earlier runs are arbitrary JSON.
const learned: Record<string, any> = {};
const event = () => learned.advancedEvent as { category: string | null; name: string };
const lastFile = (listing: string) => {
  const l = learned[listing];
  return (l.dailyFiles ?? l.fileList).at(-1).fileName as string;
};

interface Case {
  /** `raw`: the product with the raw data export feature; `main`: the first product; absent: not product-scoped. */
  product?: 'main' | 'raw';
  body?: () => unknown;
  /** Top-level member every answer must have; `''` = an empty answer; `csv` = the client export. */
  expect: string;
  /** The answer is deterministic, so the output must equal a raw call of the same operation. */
  sameAsWire?: boolean;
}

// OperationId is `string` to the compiler, so the first test checks that the table covers exactly the 33 ids.
const CASES: Record<string, Case> = {
  requestCsrf: { expect: '' },
  signIn: { expect: 'account' },
  logout: { body: () => ({}), expect: '' },
  productProperties: { expect: 'result', sameAsWire: true },
  propertyValues: { product: 'main', body: () => ({ property: 'prodVersion' }), expect: 'result', sameAsWire: true },
  listEvents: { product: 'main', expect: 'result', sameAsWire: true },
  dateRangeReport: {
    product: 'main',
    body: () => ({ ...range, clientStatus: ['new', 'active'], dateSplit: 'week' }),
    expect: 'result',
    sameAsWire: true,
  },
  currentReport: {
    product: 'main',
    body: () => ({ startDate: '2026-11-01', clientStatus: ['active'] }),
    expect: 'result',
  },
  usageDistribution: { product: 'main', body: () => range, expect: 'result', sameAsWire: true },
  lifetimeHistogram: { product: 'main', body: () => ({ ...range, events: [event()] }), expect: 'summary' },
  lifetimeDataTable: { product: 'main', body: () => range, expect: 'returnedEventsCount', sameAsWire: true },
  basicDataTable: { product: 'main', body: () => range, expect: 'result', sameAsWire: true },
  basicTimeline: {
    product: 'main',
    body: () => ({ ...range, dateSplit: 'week', dataView: 'usageCounts', events: [{ combiArray: [event()] }] }),
    expect: 'result',
  },
  advancedFullReport: { product: 'main', body: () => ({ ...range, events: [event()] }), expect: 'result' },
  churnAndEngagement: {
    product: 'main',
    body: () => ({ ...range, daysUntilDeclaredLost: 30, dateSplit: 'week' }),
    expect: 'result',
  },
  churnHistogramDays: { product: 'main', body: () => lost, expect: 'result', sameAsWire: true },
  churnHistogramRuntime: { product: 'main', body: () => lost, expect: 'result' },
  churnHistogramSessions: { product: 'main', body: () => lost, expect: 'result' },
  churnLifetimeDataTable: { product: 'main', body: () => lost, expect: 'returnedEventsCount' },
  churnLifetimeHistogram: { product: 'main', body: () => ({ ...lost, events: [event()] }), expect: 'summary' },
  searchLicenseKeys: { product: 'main', body: () => ({ paging: { limit: 5 } }), expect: 'result', sameAsWire: true },
  updateLicenseKeys: {
    product: 'main',
    body: () => ({ keyUpdates: [{ licenseKey: 'CLI-TEST-1', licenseType: 'trial' }] }),
    expect: 'result',
  },
  insertLicenseKeys: {
    product: 'main',
    body: () => ({ keyUpdates: [{ licenseKey: 'CLI-TEST-2' }] }),
    expect: 'result',
  },
  customEventsLastLines: { product: 'main', body: () => ({ lineCount: 3 }), expect: 'fieldNames', sameAsWire: true },
  customEventsListFiles: { product: 'main', expect: 'dailyFiles', sameAsWire: true },
  customEventsDownloadUrl: {
    product: 'main',
    body: () => ({ fileName: lastFile('customEventsListFiles') }),
    expect: 'downloadUrl',
  },
  exceptionsLastLines: { product: 'main', body: () => ({ lineCount: 3 }), expect: 'fieldNames', sameAsWire: true },
  exceptionsListFiles: { product: 'main', expect: 'dailyFiles', sameAsWire: true },
  exceptionsDownloadUrl: {
    product: 'main',
    body: () => ({ fileName: lastFile('exceptionsListFiles') }),
    expect: 'downloadUrl',
  },
  clientPropertyList: { product: 'main', body: () => ({ properties: ['prodVersion'] }), expect: 'result' },
  exportClientPropertyList: { product: 'main', body: () => ({ properties: ['prodVersion'] }), expect: 'csv' },
  rawEventsListFiles: { product: 'raw', expect: 'fileList', sameAsWire: true },
  rawEventsDownloadUrl: {
    product: 'raw',
    body: () => ({ fileName: lastFile('rawEventsListFiles') }),
    expect: 'downloadUrl',
  },
};

const productOf = (c: Case) =>
  c.product === 'raw' ? emu.products.find((p) => p.rawDataExport)!.productId : emu.products[0]!.productId;

function argsOf(id: string, c: Case): string[] {
  const args = [id];
  if (c.product) args.push('--product', productOf(c));
  if (c.body) args.push('--body', JSON.stringify(c.body()));
  return args;
}

describe('every operation id', () => {
  it('the table has one case per operation id', () => {
    expect(Object.keys(CASES).sort()).toEqual(OPERATIONS.map((o) => o.id).sort());
  });

  // In table order: listEvents and the listings run before the operations that use what they returned.
  it.each(OPERATIONS.map((o) => [o.id, o] as const))('%s', async (id, op) => {
    const c = CASES[id]!;
    const r = await pulse(argsOf(id, c));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(liveSessions()).toBe(othersSessions); // logged out at the end
    if (c.expect === '') return expect(r.stdout).toBe('');
    if (c.expect === 'csv') {
      expect(r.stdout.split('\r\n')[0]).toBe('clientId,prodVersion');
      const same = await wire.call('POST', op.path.replace('{product_id}', productOf(c)), c.body!());
      return expect(r.stdout).toBe(same.text);
    }
    const out = JSON.parse(r.stdout);
    expect(out).toHaveProperty(c.expect);
    learned[id] = out;
    if (id === 'listEvents') {
      const [cat] = out.result.filter((x: { categoryEventNames: { advanced: boolean }[] }) =>
        x.categoryEventNames.some((e) => e.advanced),
      );
      const name = cat.categoryEventNames.find((e: { advanced: boolean }) => e.advanced).eventName;
      learned.advancedEvent = { category: cat.category, name };
    }
    if (id === 'updateLicenseKeys' || id === 'insertLicenseKeys') {
      expect(out.result.failed).toEqual([]);
      expect(out.result.inserted + out.result.updated).toBe(1);
      const key = c.body!() as { keyUpdates: { licenseKey: string }[] };
      const filters = { licenseKey: { type: 'string', value: key.keyUpdates[0]!.licenseKey } };
      const found = await wire.post('/v3/license-key-registry', { filters });
      expect(found.json.matchingKeysCount).toBe(1);
    }
    if (c.sameAsWire) {
      const path = op.path.replace('{product_id}', c.product ? productOf(c) : '');
      const same = await wire.call(op.method, path, c.body?.());
      expect(out).toEqual(same.json);
    }
  });
});

describe('usage', () => {
  it('--list prints the 33 ids with method and path', async () => {
    const r = await pulse(['--list']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.map((l) => l.split(/\s+/))).toEqual(OPERATIONS.map((o) => [o.id, o.method, o.path]));
    expect((await pulse(['--help'])).stdout).toContain('Usage: pulse api <operationId>');
  });

  it.each([
    [['noSuchOp'], 'unknown operation id "noSuchOp"'],
    [['listEvents'], 'listEvents needs --product'],
    [['requestCsrf', '--product', '1'], 'not scoped to a product'],
    [['productProperties', '--product', ''], '--product: expected a product id'],
    [['listEvents', '--product', '1', '--download', 'x.zip'], '--download works only with'],
    [['propertyValues', '--product', '1', '--body', '{"property": prodVersion}'], 'line 1, column 14 (position 13)'],
    [['propertyValues', '--product', '1', '--body', '{\n  "a": tru\n}'], 'line 2, column 11 (position 12)'],
    [['propertyValues', '--product', '1', '--body', '@/no/such/file.json'], 'cannot read /no/such/file.json'],
    [['productProperties', '--bogus'], "Unknown option '--bogus'"],
    [['productProperties', '--timeout', '0'], '--timeout: expected seconds from 0.001 to 86400, got 0'],
    [['productProperties', '--timeout', 'soon'], '--timeout: expected seconds from 0.001 to 86400, got soon'],
    [['productProperties', '--idle-timeout', '5'], '--idle-timeout goes with --download'],
    [[], 'expected one operation id'],
  ])('%j → exit 2', async (args, message) => {
    const r = await pulse(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stderr).toMatch(/^pulse api: [^\n]*\n$/);
  });

  it('rejects --password, explaining why, without echoing it', async () => {
    for (const args of [['--password', 'hunter2-secret'], ['--password=hunter2-secret'], ['--password']]) {
      const r = await pulse(['productProperties', ...args]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('shell history');
      expect(r.stderr + r.stdout).not.toContain('hunter2-secret');
    }
  });

  it('names the missing or invalid setting', async () => {
    const r = await pulse(['productProperties'], { PULSE_BASE_URL: '' });
    expect(r).toMatchObject({ code: 2, stderr: expect.stringContaining('--base-url: pass it or set PULSE_BASE_URL') });
    const bad = await pulse(['productProperties', '--origin', 'not a url']);
    expect(bad).toMatchObject({ code: 2, stderr: expect.stringMatching(/^pulse api: --origin: /) });
  });

  it('reads --body @file', async () => {
    const file = join(dir, 'body.json');
    writeFileSync(file, '{"property": "prodVersion"}');
    const r = await pulse(['propertyValues', '--product', emu.products[0]!.productId, '--body', `@${file}`]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).result.length).toBeGreaterThan(0);
  });
});

describe('productProperties --product', () => {
  it("uses the product form of the path: that product's catalogue, the same as the wire", async () => {
    for (const product of emu.products) {
      const r = await pulse(['productProperties', '--product', product.productId]);
      expect(r).toMatchObject({ code: 0, stderr: '' });
      const same = await wire.call('GET', `/v3/meta/productProperties/${product.productId}`);
      expect(same.status).toBe(200);
      expect(JSON.parse(r.stdout)).toEqual(same.json);
    }
    expect(liveSessions()).toBe(othersSessions);
  });

  it('an unknown product is a 404 (exit 4): the product form was sent', async () => {
    const r = await pulse(['productProperties', '--product', '99999999999']);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('404');
  });
});

describe('password', () => {
  it('without PULSE_PASSWORD and no terminal: exit 2 saying to set it', async () => {
    const piped = fakeTty([], { isTTY: false });
    const r = await pulse(['productProperties'], { PULSE_PASSWORD: '' }, piped);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('set PULSE_PASSWORD');
  });

  it('asks on the terminal without echoing', async () => {
    const pw = emu.credentials.password;
    // Line editing: Ctrl-U clears, Home moves to the start, Backspace deletes before the cursor.
    const t = fakeTty(['wrong', KEY.ctrlU, pw.slice(1), KEY.home, pw[0]!, 'x', KEY.backspace, KEY.enter]);
    const r = await pulse(['productProperties'], { PULSE_PASSWORD: '' }, t);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`Password for ${emu.credentials.userName}: \n`);
    expect(t.raw).toBe(false);
    expect(r.stdout).not.toContain(pw);
  });

  it('Ctrl-C at the prompt: exit 2, nothing sent', async () => {
    const signIns = emu.state.sessions.signIns;
    const r = await pulse(['productProperties'], { PULSE_PASSWORD: '' }, fakeTty(['abc', KEY.ctrlC]));
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`Password for ${emu.credentials.userName}: \npulse api: password prompt cancelled\n`);
    expect(emu.state.sessions.signIns).toBe(signIns);
  });

  it('a wrong password is exit 3 and appears nowhere', async () => {
    const wrong = 'wrong-password-8d1f2c';
    const r = await pulse(['productProperties'], { PULSE_PASSWORD: wrong });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^pulse api: signIn: 401/);
    expect(r.stdout + r.stderr).not.toContain(wrong);
  });
});

describe('failures', () => {
  it('an unknown product is exit 4 and still logs out', async () => {
    const r = await pulse(['listEvents', '--product', '99999999999']);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('404');
    expect(liveSessions()).toBe(othersSessions);
  });

  it('a closed port is exit 5', async () => {
    const r = await offline;
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('ECONNREFUSED');
  });
});

describe('--download', () => {
  it('streams a signed file to FILE, never leaving a partial file', async () => {
    const pid = emu.products[0]!.productId;
    const listing = JSON.parse((await pulse(['exceptionsListFiles', '--product', pid])).stdout);
    const file = join(dir, 'exceptions.zip');
    const body = JSON.stringify({ fileName: listing.dailyFiles.at(-1).fileName });
    const r = await pulse(['exceptionsDownloadUrl', '--product', pid, '--body', body, '--download', file]);
    expect(r.code).toBe(0);
    const bytes = readFileSync(file);
    expect(bytes.subarray(0, 4)).toEqual(Buffer.from('PK\x03\x04', 'latin1'));
    expect(r.stderr).toBe(`pulse api: wrote ${bytes.length} bytes to ${file}\n`);
    expect(r.stdout).toBe('');
    expect(readdirSync(dir).filter((f) => f.endsWith('.partial'))).toEqual([]);
  });

  it('writes the client export CSV to FILE', async () => {
    const file = join(dir, 'clients.csv');
    const body = JSON.stringify({ properties: ['prodVersion'] });
    const r = await pulse([
      'exportClientPropertyList',
      '--product',
      emu.products[0]!.productId,
      '--body',
      body,
      '--download',
      file,
    ]);
    expect(r.code).toBe(0);
    expect(readFileSync(file, 'utf8').split('\r\n')[0]).toBe('clientId,prodVersion');
    expect(existsSync(`${file}.partial`)).toBe(false);
  });

  it('a directory, or a file in a missing folder, is a usage error (exit 2) before signing in', async () => {
    const pid = emu.products[0]!.productId;
    const body = JSON.stringify({ fileName: 'x.zip' });
    for (const [target, message] of [
      [dir, `--download: ${dir} is a directory`],
      [`${join(dir, 'new-folder')}/`, 'is a directory'],
      [join(dir, 'no-such-folder', 'x.zip'), `the folder ${join(dir, 'no-such-folder')} does not exist`],
    ] as const) {
      const signIns = emu.state.sessions.signIns;
      const r = await pulse(['exceptionsDownloadUrl', '--product', pid, '--body', body, '--download', target]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^pulse api: [^\n]*\n$/);
      expect(r.stderr).toContain(message);
      expect(emu.state.sessions.signIns).toBe(signIns);
    }
  });

  it('--timeout limits each attempt: a service that answers too slowly is exit 5 naming the limit', async () => {
    emu.faults.set({ rules: [{ operations: ['productProperties'], latencyMs: 1500 }] });
    try {
      const started = Date.now();
      const r = await pulse(['productProperties', '--timeout', '0.2']);
      expect(r.code).toBe(5);
      expect(r.stderr).toMatch(/^pulse api: productProperties: attempt 5 got no answer within 200 ms\n$/);
      expect(Date.now() - started).toBeLessThan(1500 * 5); // never waited out the latency of every attempt
    } finally {
      emu.faults.clear();
    }
  });

  it('a download that stalls fails after the idle timeout (exit 5), leaving no file', async () => {
    const pid = emu.products[0]!.productId;
    const listing = JSON.parse((await pulse(['exceptionsListFiles', '--product', pid])).stdout);
    const file = join(dir, 'stalled.zip');
    const body = JSON.stringify({ fileName: listing.dailyFiles.at(-1).fileName });
    emu.faults.set({ rules: [{ stallDownloadRate: 1 }] });
    try {
      const started = Date.now();
      const args = ['exceptionsDownloadUrl', '--product', pid, '--body', body, '--download', file];
      const r = await pulse([...args, '--idle-timeout', '0.3']);
      expect(r.code).toBe(5);
      expect(r.stderr).toMatch(/storage sent nothing for 300 ms \(after \d+ body bytes\)/);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(existsSync(file) || existsSync(`${file}.partial`)).toBe(false);
    } finally {
      emu.faults.clear();
    }
  });

  it('a failed download leaves no file', async () => {
    const file = join(dir, 'missing.zip');
    const body = JSON.stringify({ fileName: 'nope.zip' });
    const r = await pulse([
      'exceptionsDownloadUrl',
      '--product',
      emu.products[0]!.productId,
      '--body',
      body,
      '--download',
      file,
    ]);
    expect(r.code).toBe(4);
    expect(existsSync(file) || existsSync(`${file}.partial`)).toBe(false);
  });
});

it('works as a process: node bin/pulse.ts api --list', async () => {
  const bin = new URL('../../bin/pulse.ts', import.meta.url).pathname;
  const { stdout } = await promisify(execFile)(process.execPath, [bin, 'api', '--list']);
  expect(stdout.trimEnd().split('\n')).toHaveLength(OPERATIONS.length);
});
