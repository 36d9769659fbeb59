/**
 * bin/pulse.js, the `pulse` that npm links: on a Node older than the project's `node` devDependency (the system's Node 20,
 * run outside npm) one line says what to run instead, exit 2; on this Node 24 it is the CLI. The older Node is
 * found on the PATH beside the project's own; without one, that test is skipped, saying why.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STACK_FRAME } from '../helpers/pulse-process.ts';

const root = new URL('../../', import.meta.url).pathname;
const SHIM = join(root, 'bin/pulse.js');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  version: string;
  devDependencies: { node: string };
  bin: Record<string, string>;
  scripts: Record<string, string>;
};
const needed = Number(/\d+/.exec(pkg.devDependencies.node)![0]);

/** A `node` on the PATH (or /usr/bin) other than this one, older than the project's. */
function olderNode(): { path: string; version: string } | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/bin', '/usr/local/bin'];
  for (const dir of dirs) {
    const path = join(dir, 'node');
    if (!existsSync(path) || realpathSync(path) === realpathSync(process.execPath)) continue;
    const version = execFileSync(path, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
    if (Number(version.split('.')[0]) < needed) return { path, version };
  }
  return undefined;
}
const older = olderNode();

describe('bin/pulse.js', () => {
  it('is what npm links and runs', () => {
    expect(pkg.bin.pulse).toBe('bin/pulse.js');
    expect(pkg.scripts.start).toBe('node bin/pulse.js start');
    expect(pkg.scripts.emulator).toBe('node bin/pulse.js emulator');
  });

  it.skipIf(older === undefined)(
    `on an older Node (${older ? `${older.path}, ${older.version}` : 'none on the PATH: skipped'}) says what to run instead, exit 2`,
    () => {
      const r = spawnSync(older!.path, [SHIM, 'start'], { encoding: 'utf8', env: { PATH: process.env.PATH } });
      expect(r.stderr).toBe(
        `Pulse needs Node ${needed} (this is Node ${older!.version}): run it through npm (\`npx pulse\`, ` +
          `\`npm start\`), which uses the project's Node ${needed}\n`,
      );
      expect(r.stderr).not.toMatch(STACK_FRAME);
      expect(r.stdout).toBe('');
      expect(r.status).toBe(2);
    },
  );

  it('on this Node is the CLI (bin/pulse.ts), output and exit code', () => {
    const r = spawnSync(process.execPath, [SHIM, '--version'], { encoding: 'utf8' });
    expect(r).toMatchObject({ status: 0, stdout: `pulse ${pkg.version}\n`, stderr: '' });
    const bad = spawnSync(process.execPath, [SHIM, 'no-such-command'], { encoding: 'utf8' });
    expect(bad).toMatchObject({ status: 2, stderr: 'pulse: unknown command "no-such-command"; see `pulse --help`\n' });
  });
});
