/**
 * What a new user reads first: `pulse --version`, every command's and subcommand's `--help` (each lists its options
 * and its exit codes), the emulator's default sign-in, and `--week` in the form the file names use.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../emulator/options.ts';
import { weekOption } from '../../src/cli/week-option.ts';
import { pulseMain } from '../helpers/cli-main.ts';

const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'pulse-help-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('pulse --version', () => {
  it.each([['--version'], ['-v']])('%s prints the version from package.json', async (flag) => {
    expect(await pulseMain([flag])).toEqual({ code: 0, stdout: `pulse ${pkg.version}\n`, stderr: '' });
  });
});

describe('--help', () => {
  /** The commands `pulse --help` lists, and the subcommands that have a help of their own. */
  async function everyCommand(): Promise<string[][]> {
    const { stdout } = await pulseMain(['--help']);
    const listed = stdout
      .slice(stdout.indexOf('Commands:'))
      .split('\n\n')[0]!
      .split('\n')
      .slice(1)
      .map((line) => /^ {2}(\S+)/.exec(line)?.[1])
      .filter((c): c is string => c !== undefined && c !== 'help');
    const subcommands = [
      ['licenses', 'alerts'],
      ['licenses', 'report'],
      ['licenses', 'sync'],
      ['mail', 'clear-suppression'],
    ];
    return [[], ...listed.map((c) => [c]), ...subcommands];
  }

  it('of pulse, every command and every subcommand lists its options and its exit codes', async () => {
    const commands = await everyCommand();
    expect(commands.length).toBeGreaterThan(10);
    for (const command of commands) {
      const { code, stdout } = await pulseMain([...command, '--help']);
      const name = `pulse ${command.join(' ')} --help`;
      expect(code, name).toBe(0);
      expect(stdout, name).toMatch(/^Options:\n {2}\S/m);
      expect(stdout, name).toMatch(/^Exit codes:\n {2}0 {2}.+\n {2}1 {2}.+\n {2}2 {2}/m);
    }
  });

  it('of pulse emulator prints the default user and password', async () => {
    const { stdout } = await pulseMain(['emulator', '--help']);
    expect(stdout).toMatch(new RegExp(`--user U .*${DEFAULTS.user}`));
    expect(stdout).toMatch(new RegExp(`--password W .*${DEFAULTS.password}`));
    expect(stdout).not.toContain('README');
  });
});

describe('--week', () => {
  it('takes the lowercase w of the file names, passing on the ISO form', () => {
    expect(weekOption('2026-w47')).toBe('2026-W47');
    expect(weekOption('2026-W47')).toBe('2026-W47');
    expect(() => weekOption('2026-w54')).toThrow('--week: 2026-W54 does not exist');
    expect(() => weekOption('2026-x47')).toThrow('--week: expected an ISO week like 2026-W46');
  });

  it('`pulse licenses report --week 2026-w47` runs that week', async () => {
    const { code, stdout, stderr } = await pulseMain(
      ['licenses', 'report', '--local', '--dry-run', '--week', '2026-w47', '--work-dir', join(tmp, 'w')],
      { PULSE_LOCAL_EMULATOR: JSON.stringify({ clients: 200 }) },
    );
    expect(stderr).toBe('');
    expect(stdout).toMatch(/^Weekly license registry report, 2026-W47/);
    expect(code).toBe(0);
  }, 60_000);
});
