/**
 * One table of exit codes (src/cli/exit-codes.ts): every command's --help is written from it, and the README's table
 * says the same, code for code.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EXIT, EXIT_MEANINGS } from '../../src/cli/exit-codes.ts';
import { pulseMain } from '../helpers/cli-main.ts';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('exit codes', () => {
  it("the README's table has each code, in order, with the table's meaning", () => {
    const rows = [...README.matchAll(/^\| (\d) \| (.+) \|$/gm)].map((m) => [Number(m[1]), m[2]]);
    expect(rows).toEqual(Object.entries(EXIT_MEANINGS).map(([code, meaning]) => [Number(code), meaning]));
    expect(Object.values(EXIT).sort()).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it.each(['digest', 'archive', 'licenses alerts', 'licenses report', 'licenses sync', 'doctor', 'api', 'mail'])(
    '`pulse %s --help` lists every code',
    async (command) => {
      const help = await pulseMain([...command.split(' '), '--help']);
      const block = help.stdout.slice(help.stdout.indexOf('Exit codes:'));
      for (const code of Object.keys(EXIT_MEANINGS)) expect(block, command).toMatch(new RegExp(`^  ${code}  \\S`, 'm'));
    },
  );
});
