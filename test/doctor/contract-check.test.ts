/**
 * `pulse doctor --contract` over real sockets against the emulator: every read-only operation conforms and the writes
 * are skipped; a fault profile that alters answers has each alteration named by operation and field path, exit 4 and
 * a JSON report; a refused sign-in leaves every operation unchecked with exit 3; and nothing it prints or writes holds
 * the password, a session token, a CSRF value or a signed download address.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionStore } from '../../emulator/auth/sessions.ts';
import type { FaultProfile } from '../../emulator/faults.ts';
import type { Emulator } from '../../emulator/index.ts';
import { OPERATIONS } from '../../src/api/operations.ts';
import { DEFAULT_CONTRACT_REPORT } from '../../src/cli/doctor-command.ts';
import { pulseMain } from '../helpers/cli-main.ts';
import { rawConfigFor } from '../helpers/emulator-config.ts';
import { startTestEmulator } from '../helpers/emulator-session.ts';

/** Distinctive, and changed by every encoding (JSON, URL, base64). */
const PASSWORD = `Pw-${randomUUID()}-"\\+/=&ä`;
/** Every session token and CSRF value the emulator hands out (both come from SessionStore.token). */
const issued: string[] = [];
const originalToken = SessionStore.token;
let emu: Emulator;
let dir: string;
let config: string;
const cwd = process.cwd();

beforeAll(async () => {
  SessionStore.token = () => {
    const t = originalToken();
    issued.push(t);
    return t;
  };
  emu = await startTestEmulator({ password: PASSWORD });
  dir = await mkdtemp(join(tmpdir(), 'pulse-contract-'));
  config = join(dir, 'pulse.config.json');
  // Every product: raw event files come from the first one with raw data export.
  const raw = { ...rawConfigFor(emu), products: emu.products.map((p) => ({ id: p.productId })) };
  await writeFile(config, JSON.stringify(raw));
  // The default report lands in the current folder: the test's own.
  process.chdir(dir);
});
afterAll(async () => {
  process.chdir(cwd);
  SessionStore.token = originalToken;
  await emu?.close();
  await rm(dir, { recursive: true, force: true });
});

async function contract(args: string[] = [], password = PASSWORD) {
  const out = await pulseMain(['doctor', '--contract', '--config', config, ...args], {
    PULSE_USER: emu.credentials.userName,
    PULSE_PASSWORD: password,
  });
  const lines = out.stdout.trimEnd().split('\n');
  /** The lines of one operation. */
  const of = (id: string) => lines.filter((l) => l.slice(2).startsWith(`${id}: `));
  return { ...out, lines, of };
}

/** Alterations of four answers, one of them the signed download address. */
const ALTERED: FaultProfile = {
  rules: [
    { operations: ['signIn'], alterShape: { drop: 'account.email' } },
    { operations: ['listEvents'], alterShape: { retype: 'result.*.category' } },
    { operations: ['dateRangeReport'], alterShape: { rename: 'result', to: 'results' } },
    { operations: ['customEventsDownloadUrl'], alterShape: { retype: 'downloadUrl' } },
  ],
};

describe('pulse doctor --contract', () => {
  it('against the emulator: every read-only operation conforms, the writes and the export are skipped, exit 0', async () => {
    const { code, lines, of, stderr } = await contract();
    expect(stderr).toBe('');
    for (const { id } of OPERATIONS) expect(of(id), id).toHaveLength(1);
    expect(lines).toHaveLength(1 + 33 + 1); // config, the operations, the summary
    for (const id of ['updateLicenseKeys', 'insertLicenseKeys'])
      expect(of(id)).toEqual([`- ${id}: skipped: writes (changes license keys)`]);
    expect(of('exportClientPropertyList')[0]).toMatch(/^- exportClientPropertyList: skipped: .*whole-file download$/);
    const conforming = lines.filter((l) => /^✓ \w+: conforms \(HTTP 20[04](, product \d+)?\)$/.test(l));
    expect(conforming).toHaveLength(30);
    expect(of('rawEventsListFiles')[0]).toBe(
      `✓ rawEventsListFiles: conforms (HTTP 200, product ${emu.products.find((p) => p.rawDataExport)!.productId})`,
    );
    expect(of('logout')).toEqual(['✓ logout: conforms (HTTP 204)']);
    expect(lines.at(-1)).toBe('contract: 30 conform, 0 differ, 3 skipped, 0 not checked');
    expect(code).toBe(0);
    // Nothing differs: no report unless asked for; the check's session is over.
    expect(existsSync(join(dir, DEFAULT_CONTRACT_REPORT))).toBe(false);
    expect(emu.state.sessions.liveSessionsOf(emu.credentials.userName)).toHaveLength(0);
  });

  it('--report FILE: the outcomes of all 33 operations as JSON, also when everything conforms', async () => {
    const file = join(dir, 'all.json');
    const { code, lines } = await contract(['--report', file]);
    expect(code).toBe(0);
    expect(lines.at(-1)).toBe(`contract: 30 conform, 0 differ, 3 skipped, 0 not checked (report: ${file})`);
    const report = JSON.parse(await readFile(file, 'utf8'));
    expect(report).toMatchObject({ kind: 'pulse-contract-report', summary: { conforms: 30, differs: 0, skipped: 3 } });
    expect(report.operations.map((o: { operationId: string }) => o.operationId).sort()).toEqual(
      OPERATIONS.map((o) => o.id).sort(),
    );
    expect(report.operations.find((o: { operationId: string }) => o.operationId === 'dateRangeReport')).toEqual({
      operationId: 'dateRangeReport',
      method: 'POST',
      path: '/v3/reporting/generic/dateRange/{product_id}',
      result: 'conforms',
      status: 200,
      detail: 'HTTP 200',
      differences: [],
    });
  });

  it('with a profile that alters answers: each alteration named by operation and path, exit 4, the report', async () => {
    emu.faults.set(ALTERED);
    let run: Awaited<ReturnType<typeof contract>>;
    try {
      run = await contract();
    } finally {
      emu.faults.clear();
    }
    const { code, of, lines } = run;
    expect(of('signIn')).toEqual(['✗ signIn: account.email: the document says a value (required), came nothing']);
    expect(of('listEvents')).toEqual([
      expect.stringMatching(/^✗ listEvents: result\[\*\]\.category: the document says .*, came 0 \(in \d+ items\)$/),
    ]);
    expect(of('dateRangeReport')).toEqual([
      '✗ dateRangeReport: result: the document says a value (required), came nothing',
    ]);
    expect(of('customEventsDownloadUrl')).toEqual([
      '✗ customEventsDownloadUrl: downloadUrl: the document says type string, came (a value not shown)',
    ]);
    // The rest still conforms; what needed an event from the altered listing says so.
    expect(of('currentReport')).toEqual(['✓ currentReport: conforms (HTTP 200)']);
    expect(of('advancedFullReport')).toEqual(['! advancedFullReport: not checked: needs an advanced event']);
    expect(lines.filter((l) => l.startsWith('✗'))).toHaveLength(4);
    expect(lines.at(-1)).toMatch(
      new RegExp(
        `^contract: \\d+ conform, 4 differ, 3 skipped, \\d+ not checked \\(report: ${DEFAULT_CONTRACT_REPORT}\\)$`,
      ),
    );
    expect(code).toBe(4);
    const report = JSON.parse(await readFile(join(dir, DEFAULT_CONTRACT_REPORT), 'utf8'));
    expect(report.summary.differs).toBe(4);
    expect(report.operations.find((o: { operationId: string }) => o.operationId === 'signIn').differences).toEqual([
      { path: 'account.email', expected: 'a value (required)', got: 'nothing' },
    ]);
    expect(emu.state.sessions.liveSessionsOf(emu.credentials.userName)).toHaveLength(0);
  });

  it('a refused sign-in: every operation listed as not checked (writes still skipped), exit 3', async () => {
    const { code, lines, of } = await contract([], 'not-the-password');
    for (const { id } of OPERATIONS) expect(of(id), id).toHaveLength(1);
    expect(of('signIn')[0]).toMatch(/^✗ signIn: answered HTTP 401 Unauthorized.*: check the user name and password/);
    expect(of('dateRangeReport')).toEqual(['! dateRangeReport: not checked: not signed in']);
    expect(of('updateLicenseKeys')).toEqual(['- updateLicenseKeys: skipped: writes (changes license keys)']);
    expect(lines.at(-1)).toBe('contract: 1 conform, 0 differ, 3 skipped, 29 not checked');
    expect(code).toBe(3);
  });

  it('shows no password, session token, CSRF value or signed address, in its output, --verbose logs or report', async () => {
    const file = join(dir, 'secrets.json');
    emu.faults.set({
      rules: [
        ...ALTERED.rules,
        { operations: ['exceptionsDownloadUrl'], alterShape: { rename: 'downloadUrl', to: 'url' } },
        { operations: ['signIn'], alterShape: { retype: 'account.userToken' } },
      ],
    });
    const outputs: string[] = [];
    try {
      for (const args of [['--report', file], ['--verbose']]) {
        const run = await contract(args);
        outputs.push(run.stdout, run.stderr);
      }
      outputs.push((await contract(['--verbose'], `${PASSWORD}-wrong`)).stdout);
    } finally {
      emu.faults.clear();
    }
    outputs.push(await readFile(file, 'utf8'), await readFile(join(dir, DEFAULT_CONTRACT_REPORT), 'utf8'));
    const all = outputs.join('\n');
    expect(all).toContain('✗ signIn: account.email'); // the runs did check
    expect(issued.length).toBeGreaterThan(6);
    const forms = (s: string) => [
      s,
      JSON.stringify(s).slice(1, -1),
      encodeURIComponent(s),
      btoa(unescape(encodeURIComponent(s))),
    ];
    for (const secret of [PASSWORD, ...issued]) for (const form of forms(secret)) expect(all).not.toContain(form);
    expect(all).not.toMatch(/[?&](signature|sig|expires|token)=/i);
  });

  it('the help names --contract, --report and the exit code of a difference', async () => {
    const { stdout } = await pulseMain(['doctor', '--help']);
    expect(stdout).toContain('pulse doctor --contract [--config FILE] [--report FILE]');
    expect(stdout).toMatch(/--report FILE {3}also write the outcomes as JSON/);
    expect(stdout).toContain('With --contract: 4 when an answer');
    const usage = await pulseMain(['doctor', '--config', config, '--report', 'x.json'], {});
    expect(usage.code).toBe(2);
  });
});
