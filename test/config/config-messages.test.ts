/**
 * What a config that does not load tells its writer: how to name a config when there is none, where a JSON syntax
 * error is, the key a misspelt one likely means, and "required" for a field that is missing.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig, parseConfig } from '../../src/config/load.ts';
import { pulseMain } from '../helpers/cli-main.ts';
import { PULSE_BIN, STACK_FRAME } from '../helpers/pulse-process.ts';

const dir = mkdtempSync(join(tmpdir(), 'pulse-config-messages-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// biome-ignore lint/suspicious/noExplicitAny: each case changes a different corner of a raw JSON document.
type RawConfig = any;
const example = (): RawConfig => {
  const c = JSON.parse(readFileSync(new URL('../../examples/pulse.config.json', import.meta.url), 'utf8'));
  delete c.$schema;
  return c;
};
/** The ConfigError's message for the example changed by `change`. */
const messageOf = (change: (c: RawConfig) => void): string => {
  const c = example();
  change(c);
  try {
    parseConfig(c, 'pulse.config.json');
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('the config was accepted');
};

describe('no config file', () => {
  it('`pulse digest` in a folder without pulse.config.json says how to name one (exit 2)', async () => {
    const env = { HOME: dir, PULSE_USER: 'u', PULSE_PASSWORD: 'p' }; // no $PULSE_CONFIG
    const run = await promisify(execFile)(process.execPath, [PULSE_BIN, 'digest'], { cwd: dir, env }).then(
      (r) => ({ ...r, code: 0 }),
      (e: { stdout: string; stderr: string; code: number }) => e,
    );
    expect(run.stderr).toBe(
      'pulse: pulse.config.json: cannot read (ENOENT): there is no pulse.config.json in this folder; name a config ' +
        'with --config FILE or $PULSE_CONFIG (a job run with --local uses the bundled example)\n',
    );
    expect(run.stderr).not.toMatch(STACK_FRAME);
    expect(run.code).toBe(2);
  });

  it('a file named explicitly that is not there is named as it is', () => {
    expect(() => loadConfig(join(dir, 'missing.json'))).toThrow(
      new RegExp(`^${join(dir, 'missing.json')}: cannot read \\(ENOENT\\)$`),
    );
  });
});

describe('a JSON syntax error', () => {
  it('is named with its line and column, as `pulse api --body` names one', async () => {
    const text = '{\n  "service": {\n    "baseUrl": "x"\n    "origin": "y"\n  }\n}\n';
    const file = join(dir, 'syntax.json');
    writeFileSync(file, text);
    expect(() => loadConfig(file)).toThrow(
      `${file}: not valid JSON at line 4, column 5 (position 40): Expected ',' or '}' after property value`,
    );
    const body = await pulseMain(['api', 'propertyValues', '--product', '1', '--body', text]);
    expect(body.stderr).toBe(
      "pulse api: --body: invalid JSON at line 4, column 5 (position 40): Expected ',' or '}' after property value\n",
    );
  });
});

describe('schema issues', () => {
  it.each([
    [
      'a recipient',
      (c: RawConfig) => {
        c.digests[0].recipients[0].timezone = 'UTC';
        delete c.digests[0].recipients[0].timeZone;
      },
      'digests[0].recipients[0]: Unrecognized key: "timezone" (did you mean "timeZone"?)',
    ],
    ['the root', (c: RawConfig) => (c.digest = []), '(root): Unrecognized key: "digest" (did you mean "digests"?)'],
    [
      'the option of a union its kind names',
      (c: RawConfig) => (c.mail.transport = { kind: 'smtp', host: 'h', prot: 25 }),
      'mail.transport: Unrecognized key: "prot" (did you mean "port"?)',
    ],
    [
      'several keys',
      (c: RawConfig) => Object.assign(c.mail, { frm: 'a@example.com', trnsport: {} }),
      'mail: Unrecognized keys: "frm" (did you mean "from"?), "trnsport" (did you mean "transport"?)',
    ],
  ])('a misspelt key of %s names the closest known key', (_, change, expected) => {
    expect(messageOf(change)).toContain(expected);
  });

  it('a key like none known is named alone', () => {
    expect(messageOf((c) => (c.archive.retention = { years: 1 }))).toMatch(
      /^ {2}archive\.retention: Unrecognized key: "years"$/m,
    );
  });

  it('a missing field is required, not "received undefined"', () => {
    const missingFrom = messageOf((c) => delete c.mail.from);
    expect(missingFrom).toContain('mail.from: required (string)');
    expect(missingFrom).not.toContain('undefined');
    expect(messageOf((c) => delete c.service)).toContain('service: required (object)');
    expect(messageOf((c) => (c.service.credentials = {}))).toContain(
      'service.credentials.source: required (one of "env", "secretsManager")',
    );
    // A wrong value that is there is still said as it is.
    expect(messageOf((c) => (c.mail.from = null))).toContain('mail.from: expected string, received null');
  });
});
