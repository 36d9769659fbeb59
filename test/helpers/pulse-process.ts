/**
 * The `pulse` CLI as a real child process (bin/pulse.ts on this Node), for tests that need what only a process has:
 * its own exit code and stderr, an uncaught error's stack trace, or being killed mid-run.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { EXAMPLE_CONFIG } from '../../src/app/local-runtime.ts';

export const PULSE_BIN = new URL('../../bin/pulse.ts', import.meta.url).pathname;

export interface PulseExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface PulseProcess {
  child: ChildProcess;
  /** Output so far. */
  stdout(): string;
  stderr(): string;
  /** Settles when the process has exited and its output is complete. */
  exited: Promise<PulseExit>;
}

/** `nodeArgs` go before the script, e.g. `['--import', preload]`. */
export function startPulse(args: string[], env: Record<string, string> = {}, nodeArgs: string[] = []): PulseProcess {
  const child = spawn(process.execPath, [...nodeArgs, PULSE_BIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => {
    stdout += d;
  });
  child.stderr!.on('data', (d) => {
    stderr += d;
  });
  const exited = new Promise<PulseExit>((resolve, reject) => {
    child.once('error', reject);
    // 'close', not 'exit': the pipes have been read to the end.
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

export function runPulse(
  args: string[],
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
): Promise<PulseExit> {
  return startPulse(args, env, nodeArgs).exited;
}

/** The bundled example config (without `$schema`), changed by `change`, written to `dir/name`; returns its path. */
export async function writeExampleConfig(
  dir: string,
  name: string,
  // biome-ignore lint/suspicious/noExplicitAny: each test changes a different corner of a raw JSON document.
  change: (config: any) => void,
): Promise<string> {
  const config = JSON.parse(await readFile(EXAMPLE_CONFIG, 'utf8'));
  delete config.$schema;
  change(config);
  const path = join(dir, name);
  await writeFile(path, JSON.stringify(config));
  return path;
}

/** A Node stack frame: an uncaught error reached the user. */
export const STACK_FRAME = /^\s+at .+[:(]/m;
