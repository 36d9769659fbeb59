/**
 * The `pulse` CLI as a real child process (bin/pulse.ts on this Node), for tests that need what only a process has:
 * its own exit code and stderr, an uncaught error's stack trace, or being killed mid-run.
 */
import { type ChildProcess, spawn } from 'node:child_process';

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

export function startPulse(args: string[], env: Record<string, string> = {}): PulseProcess {
  const child = spawn(process.execPath, [PULSE_BIN, ...args], {
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

export function runPulse(args: string[], env: Record<string, string> = {}): Promise<PulseExit> {
  return startPulse(args, env).exited;
}

/** A Node stack frame: an uncaught error reached the user. */
export const STACK_FRAME = /^\s+at .+[:(]/m;
