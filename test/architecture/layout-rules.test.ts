/**
 * The layout's rules (.dependency-cruiser.cjs, run by `npm run check`): the repository keeps them, and a tree that
 * breaks one fails naming the rule and the import. The breaking tree is made in a temporary folder, so the
 * repository never holds a violation.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = new URL('../..', import.meta.url).pathname;
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
const DEPCRUISE = join(ROOT, 'node_modules/.bin/depcruise');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const cruise = (cwd: string, ...paths: string[]) =>
  spawnSync(DEPCRUISE, [...paths, '--config', CONFIG, '--output-type', 'err'], { cwd, encoding: 'utf8' });

/** A small tree of files (path → source) in a temporary folder, with the project's tsconfig. */
function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'pulse-layout-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { allowImportingTsExtensions: true } }));
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), source);
  }
  return dir;
}

describe('the layout rules', () => {
  it('hold for the repository', () => {
    const run = cruise(ROOT, 'src', 'lib', 'functions', 'bin', 'emulator');
    expect(run.stdout + run.stderr).toContain('no dependency violations found');
    expect(run.status).toBe(0);
  }, 60_000);

  it.each([
    [
      'ports-are-interfaces',
      { 'src/ports/store.ts': "import { plan } from '../archive/plan.ts';\nexport type S = typeof plan;\n" },
      'src/ports/store.ts → src/archive/plan.ts',
    ],
    [
      'core-imports-no-job',
      { 'src/core/week.ts': "import { held } from '../digest/held.ts';\nexport const w = held;\n" },
      'src/core/week.ts → src/digest/held.ts',
    ],
    [
      'jobs-do-not-import-each-other (licenses/report)',
      { 'src/licenses/report/run.ts': "import { send } from '../../digest/send.ts';\nexport const r = send;\n" },
      'src/licenses/report/run.ts → src/digest/send.ts',
    ],
    [
      'jobs-run-over-ports',
      { 'src/digest/run.ts': "import { s3 } from '../adapters/aws/s3.ts';\nexport const r = s3;\n" },
      'src/digest/run.ts → src/adapters/aws/s3.ts',
    ],
    [
      'emulator-imports-only-the-operation-list',
      { 'emulator/server.ts': "import { client } from '../src/client/client.ts';\nexport const c = client;\n" },
      'emulator/server.ts → src/client/client.ts',
    ],
    [
      'client-imports-only-the-operation-list',
      { 'src/client/options.ts': "import { s3 } from '../ports/logger.ts';\nexport const o = s3;\n" },
      'src/client/options.ts → src/ports/logger.ts',
    ],
    [
      'config-imports-no-job-core-or-port',
      { 'src/config/schema.ts': "import { send } from '../core/archive-key.ts';\nexport const k = send;\n" },
      'src/config/schema.ts → src/core/archive-key.ts',
    ],
    [
      'functions-do-not-import-each-other',
      {
        'functions/archive-plan/runtime.ts':
          "import { ports } from '../archive-copy/runtime.ts';\nexport const p = ports;\n",
      },
      'functions/archive-plan/runtime.ts → functions/archive-copy/runtime.ts',
    ],
    [
      'console-only-reads',
      { 'src/console/page.ts': "import { ports } from '../app/local-runtime.ts';\nexport const p = ports;\n" },
      'src/console/page.ts → src/app/local-runtime.ts',
    ],
    [
      'no-circular',
      {
        'src/digest/a.ts': "import { b } from './b.ts';\nexport const a = () => b;\n",
        'src/digest/b.ts': "import { a } from './a.ts';\nexport const b = () => a;\n",
      },
      'src/digest/a.ts',
    ],
  ] as [string, Record<string, string>, string][])(
    'a tree that breaks %s fails, naming the rule and the import',
    (rule, files, edge) => {
      // Each imported file exists, exporting the names the tree imports.
      const withTargets: Record<string, string> = { ...files };
      for (const [path, source] of Object.entries(files))
        for (const [, spec] of source.matchAll(/from '([^']+)'/g)) {
          const target = join(dirname(path), spec!);
          withTargets[target] ??= 'export const plan = 1, held = 1, send = 1, s3 = 1, client = 1, ports = 1;\n';
        }
      const dir = tree(withTargets);
      const tops = [...new Set(Object.keys(withTargets).map((path) => path.split('/')[0]!))];
      const run = cruise(dir, ...tops);
      expect(run.status, run.stdout + run.stderr).not.toBe(0);
      expect(run.stdout).toContain(`error ${rule}: ${edge}`);
    },
    60_000,
  );
});
