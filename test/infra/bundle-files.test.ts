/**
 * What a function's bundle gets besides its code (lib/constructs/bundle-files.ts, pulse-function.ts): the copy
 * commands run as CDK runs them, and a real bundling by esbuild puts each function's own config into its asset.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { afterAll, describe, expect, it } from 'vitest';
import { copyCommands, stageJsonFile } from '../../lib/constructs/bundle-files.ts';
import { PulseFunction } from '../../lib/constructs/pulse-function.ts';

const dir = mkdtempSync(join(tmpdir(), 'pulse-bundle-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('copyCommands', () => {
  it('copies each file to its place in the output, names taken literally by the shell', () => {
    const source = join(dir, `it's $HOME and \`x\``);
    mkdirSync(source);
    writeFileSync(join(source, 'a.html'), 'template');
    const output = join(dir, 'out $(echo no)');
    mkdirSync(output);
    const commands = copyCommands([[join(source, 'a.html'), 'templates/digest.html']], output);
    execFileSync('bash', ['-c', commands.join(' && ')]);
    expect(readFileSync(join(output, 'templates/digest.html'), 'utf8')).toBe('template');
  });
});

describe('stageJsonFile', () => {
  it('writes the text to a file named by its SHA-256, readable by its owner only', () => {
    const staged = stageJsonFile('{"a":1}\n');
    expect(staged.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(staged.path).toContain(staged.sha256);
    expect(readFileSync(staged.path, 'utf8')).toBe('{"a":1}\n');
    expect(stageJsonFile('{"a":1}\n')).toEqual(staged);
  });
});

describe('a bundled PulseFunction', () => {
  it('has its own pulse.config.json next to index.mjs, even when another bundle of the same code has another', () => {
    const outdir = join(dir, 'cdk.out');
    const app = new App({ outdir });
    const stack = new Stack(app, 'BundleTest');
    const alarmTopic = new Topic(stack, 'Alarms');
    const fns = ['one', 'two'].map(
      (name) =>
        new PulseFunction(stack, `Sync-${name}`, {
          handler: 'license-sync',
          environment: {},
          alarmTopic,
          config: { name },
        }),
    );
    app.synth();
    const configs = readdirSync(outdir)
      .filter((d) => d.startsWith('asset.') && existsSync(join(outdir, d, 'index.mjs')))
      .map((d) => readFileSync(join(outdir, d, 'pulse.config.json'), 'utf8'))
      .sort();
    expect(configs).toEqual(fns.map((f) => f.bundledConfig).sort());
    expect(configs.map((c) => JSON.parse(c))).toEqual([{ name: 'one' }, { name: 'two' }]);
  }, 60_000);
});
