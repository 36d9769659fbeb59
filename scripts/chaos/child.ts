/**
 * One chaos run: a real `pulse` process (bin/pulse.ts on this Node), optionally SIGKILLed after a delay, bounded by a
 * time limit (SIGKILLed and reported as hung after it). Its stdout's JSON lines are the jobs' results.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { FIRED_LINE } from './peer-faults.ts';

export const PULSE_BIN = fileURLToPath(new URL('../../bin/pulse.ts', import.meta.url));

export interface JobResult {
  job: string;
  ok: boolean;
  counts: Record<string, number>;
  outputs: string[];
  errors: string[];
}

export interface ChildRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** SIGKILLed by the chaos runner at its drawn delay. */
  killed: boolean;
  /** SIGKILLed because it outlived the time limit. */
  hung: boolean;
  ms: number;
  stdout: string;
  stderr: string;
  results: JobResult[];
  /** The peer faults that fired, as the run wrote them on exit (peer-faults.ts); none when it was killed. */
  fired: Record<string, number>;
}

export function runChild(
  args: string[],
  env: Record<string, string>,
  opts: { killAfterMs?: number | undefined; limitMs: number; nodeArgs?: string[] },
): Promise<ChildRun> {
  const started = Date.now();
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), PULSE_BIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  let killed = false;
  let hung = false;
  const killTimer =
    opts.killAfterMs === undefined
      ? undefined
      : setTimeout(() => {
          killed = child.kill('SIGKILL');
        }, opts.killAfterMs);
  const limitTimer = setTimeout(() => {
    hung = child.kill('SIGKILL');
  }, opts.limitMs);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(killTimer);
      clearTimeout(limitTimer);
      const results: JobResult[] = [];
      for (const line of stdout.split('\n')) {
        if (!line.startsWith('{')) continue;
        try {
          const r = JSON.parse(line);
          if (typeof r.job === 'string') results.push(r);
        } catch {
          // A line cut by the kill.
        }
      }
      const firedLine = stderr.split('\n').find((l) => l.startsWith(FIRED_LINE));
      // A kill that came after the process had exited by itself is no kill.
      resolve({
        code,
        signal,
        killed: killed && signal === 'SIGKILL',
        hung,
        ms: Date.now() - started,
        stdout,
        stderr,
        results,
        fired: firedLine ? (JSON.parse(firedLine.slice(FIRED_LINE.length)) as Record<string, number>) : {},
      });
    });
  });
}
