import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const PULSE = new URL('../../bin/pulse.ts', import.meta.url).pathname;
let child: ChildProcess | undefined;
afterEach(() => {
  child?.kill('SIGKILL');
  child = undefined;
});

async function runPulse(args: string[], env: Record<string, string> = {}) {
  try {
    const r = await run(process.execPath, [PULSE, ...args], { env: { ...process.env, ...env } });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

describe('pulse CLI', () => {
  it('prints help and exits 0', async () => {
    const r = await runPulse(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('emulator');
    const e = await runPulse(['emulator', '--help']);
    expect(e.stdout).toContain('--storage-port');
    expect(e.stdout).toContain('--registry-keys');
  });

  it('works through npx after npm ci', async () => {
    const r = await run('npx', ['--no-install', 'pulse', '--help'], {
      cwd: new URL('../..', import.meta.url).pathname,
    });
    expect(r.stdout).toContain('Usage: pulse <command>');
  });

  it('rejects bad options with exit code 2 and the option name', async () => {
    expect(await runPulse(['emulator', '--clients', 'many'])).toMatchObject({ code: 2 });
    expect((await runPulse(['emulator', '--clients', 'many'])).stderr).toContain('--clients');
    expect((await runPulse(['emulator', '--origin', 'not a url'])).stderr).toContain('origin:');
    expect((await runPulse(['emulator', '--registry-keys', '1e6'])).stderr).toContain('--registry-keys');
    expect((await runPulse(['emulator', '--registry-keys', '999999999'])).stderr).toContain('registryKeys:');
    expect((await runPulse(['emulator', '--bogus'])).code).toBe(2);
    expect((await runPulse(['frobnicate'])).stderr).toContain('unknown command');
  });

  it('starts the emulator, serves requests, never prints the password, and stops on SIGTERM', async () => {
    const password = 'pw-that-must-not-leak-1234';
    child = spawn(process.execPath, [PULSE, 'emulator', '--port', '0', '--storage-port', '0', '--clients', '50'], {
      env: { ...process.env, PULSE_EMULATOR_PASSWORD: password },
    });
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
    });
    const deadline = Date.now() + 20_000;
    while (!/emulator listening on (\S+)/.test(out) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    const baseUrl = /emulator listening on (\S+)/.exec(out)?.[1];
    expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(out).toMatch(/storage listening on http:\/\/127\.0\.0\.1:\d+/);
    const csrf = await fetch(`${baseUrl}/v3/request-csrf`, { headers: { Origin: 'http://localhost:3000' } });
    expect(csrf.status).toBe(204);
    const cookie = csrf.headers.getSetCookie()[0]!.split(';')[0]!;
    const signIn = await fetch(`${baseUrl}/v3/auth/web`, {
      method: 'POST',
      headers: { Origin: 'http://localhost:3000', Cookie: cookie },
      body: JSON.stringify({ userName: 'ada@example.com', password }),
    });
    expect(signIn.status).toBe(200);
    expect(out).not.toContain(password);
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
  });
});
