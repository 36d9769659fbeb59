/**
 * The CLI from a production install (`npm ci --omit=dev`): bin/pulse.ts's static imports reach only production
 * dependencies, the local peers (devDependencies) are loaded only for `--local`, and without them `--local` says
 * what to install (exit 2) while every other command runs — the digest rendering from the committed compiled
 * templates, with no mjml.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../emulator/index.ts';
import { LOCAL_PEER_PACKAGES, LocalPeersMissingError, loadLocalRuntime } from '../../src/app/load-local-runtime.ts';
import { describeFailure } from '../../src/cli/failure.ts';
import { runPulse, STACK_FRAME, writeExampleConfig } from '../helpers/pulse-process.ts';

const root = new URL('../../', import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const packageOf = (path: string) =>
  path
    .split('/')
    .slice(0, path.startsWith('@') ? 2 : 1)
    .join('/');
const MISSING = 'the local peers need the dev dependencies: run `npm ci` (not --omit=dev)';

/** bin/pulse.ts's import graph: every file and package reached by static imports, and the dynamic imports. */
async function importGraph() {
  const { metafile } = await build({
    entryPoints: [join(root, 'bin/pulse.ts')],
    absWorkingDir: root,
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    write: false,
    outdir: join(tmpdir(), 'pulse-import-graph'),
    metafile: true,
    logLevel: 'silent',
  });
  const inputs = (metafile as Metafile).inputs;
  const files = new Set(['bin/pulse.ts']);
  const packages = new Map<string, string>(); // package → the file that imports it
  const dynamic = new Set<string>();
  const queue = ['bin/pulse.ts'];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    for (const imp of inputs[file]?.imports ?? []) {
      if (imp.kind === 'dynamic-import') dynamic.add(imp.path);
      else if (imp.external) {
        if (!imp.path.startsWith('node:')) packages.set(packageOf(imp.path), file);
      } else if (!files.has(imp.path)) {
        files.add(imp.path);
        queue.push(imp.path);
      }
    }
  }
  return { files, packages, dynamic };
}

describe('the static import graph of bin/pulse.ts', () => {
  it('reaches production dependencies only; the local runtime is a dynamic import', async () => {
    const { files, packages, dynamic } = await importGraph();
    expect(files.size).toBeGreaterThan(100); // the walk did see the CLI
    const notProduction = [...packages].filter(([p]) => !(p in pkg.dependencies)).map(([p, from]) => `${p} ← ${from}`);
    expect(notProduction).toEqual([]);
    for (const p of LOCAL_PEER_PACKAGES) expect(p in pkg.devDependencies).toBe(true);
    expect(files.has('src/app/local-runtime.ts')).toBe(false);
    expect(files.has('src/adapters/local/local-peers.ts')).toBe(false);
    expect(dynamic).toContain('src/app/local-runtime.ts');
  });
});

describe('loadLocalRuntime', () => {
  const notFound = (name: string) =>
    Object.assign(new Error(`Cannot find package '${name}' imported from /app/src/adapters/local/peer-servers.ts`), {
      code: 'ERR_MODULE_NOT_FOUND',
    });

  it('a missing local peer package is LocalPeersMissingError naming it: exit 2, one line', async () => {
    for (const name of LOCAL_PEER_PACKAGES) {
      const error = await loadLocalRuntime(() => Promise.reject(notFound(name))).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LocalPeersMissingError);
      expect((error as Error).message).toBe(`${MISSING}; ${name} is not installed`);
      expect(describeFailure(error)).toEqual({ code: 2, line: (error as Error).message });
    }
  });

  it('any other failure is passed on as it is', async () => {
    for (const e of [notFound('zod'), new Error('boom'), Object.assign(new Error('x'), { code: 'ENOENT' })]) {
      await expect(loadLocalRuntime(() => Promise.reject(e))).rejects.toBe(e);
    }
  });

  it('loads the local runtime when the dev dependencies are there', async () => {
    expect(typeof (await loadLocalRuntime()).startLocalRuntime).toBe('function');
  });
});

describe('as a process without the dev dependencies', () => {
  const preload = ['--import', new URL('../helpers/without-dev-dependencies.ts', import.meta.url).pathname];
  const dir = mkdtempSync(join(tmpdir(), 'pulse-prod-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function closedPort(): Promise<number> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    return port;
  }

  it('the preload does hide them', async () => {
    const r = await runPulse(['digest', '--local', '--dry-run', '--work-dir', join(dir, 'w')], {}, preload);
    // The first local peer package the import graph meets: the channel sinks' signature checker.
    expect(r.stderr).toBe(`pulse digest: ${MISSING}; standardwebhooks is not installed\n`);
    expect(r.code).toBe(2);
  });

  it('--local of every job says what to install (exit 2), with no stack trace and no work directory', async () => {
    const runs = [['archive', '--local'], ['licenses', '--local'], ['start']].map(async (args) => {
      const workDir = join(dir, args[0]!);
      return { workDir, r: await runPulse([...args, '--work-dir', workDir], {}, preload) };
    });
    for (const { workDir, r } of await Promise.all(runs)) {
      expect(r.stderr).toContain(MISSING);
      expect(r.stderr).not.toMatch(STACK_FRAME);
      expect(r.code).toBe(2);
      expect(existsSync(workDir)).toBe(false);
    }
  });

  it('pulse api, and digest/archive with --config, run: they fail only at the (closed) service', async () => {
    expect((await runPulse(['api', '--list'], {}, preload)).code).toBe(0);
    const port = await closedPort();
    const env = {
      PULSE_BASE_URL: `http://127.0.0.1:${port}`,
      PULSE_ORIGIN: 'http://localhost:3000',
      PULSE_USER: 'ada@example.com',
      PULSE_PASSWORD: 'not-used-anywhere',
    };
    const api = await runPulse(['api', 'productProperties'], env, preload);
    expect(api).toMatchObject({ code: 5, stderr: expect.stringContaining('ECONNREFUSED') });
    const config = await writeExampleConfig(dir, 'pulse.config.json', (c) => {
      c.service.baseUrl = `http://127.0.0.1:${port}`;
      c.service.credentials = { source: 'env' };
    });
    const commands = ['digest', 'archive'];
    const runs = await Promise.all(commands.map((c) => runPulse([c, '--config', config, '--dry-run'], env, preload)));
    for (const [i, r] of runs.entries()) {
      expect(r.stderr).not.toContain('Cannot find');
      expect(r.stderr).toMatch(new RegExp(`^pulse ${commands[i]}: .*ECONNREFUSED`, 'm'));
      expect(r.code).toBe(5);
    }
  });

  it('pulse digest --config renders the email and the full report (templates ship compiled, no mjml)', async () => {
    const emu = await startEmulator({ clients: 200, seed: 3 });
    try {
      const config = await writeExampleConfig(dir, 'emulator.json', (c) => {
        c.service.baseUrl = emu.baseUrl;
        c.service.origin = emu.origin;
        c.service.credentials = { source: 'env' };
      });
      const env = { PULSE_USER: 'ada@example.com', PULSE_PASSWORD: emu.credentials.password };
      const out = join(dir, 'preview');
      const r = await runPulse(['digest', '--config', config, '--preview', '--out', out], env, preload);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^digest: ok \(previewed 1, sent 0\)/);
      const files = readdirSync(out).sort();
      expect(files.map((f) => f.replace(/[^.]*\./, '*.')).sort()).toEqual(['*.eml', '*.html', '*.html']);
      const eml = readFileSync(join(out, files.find((f) => f.endsWith('.eml'))!), 'utf8');
      expect(eml).toMatch(/^Subject: .*Weekly_executive_digest/m);
      const report = readFileSync(join(out, files.find((f) => f.startsWith('digest-'))!), 'utf8');
      expect(report).toContain('Example Server');
      expect(report).not.toContain('[['); // every placeholder filled
    } finally {
      await emu.close();
    }
  });
});
