/**
 * Child processes for the archive benches: peers that keep running while measurements happen (the 1 GiB ZIP
 * storage, the 1M-client emulator) and measuring runs, each in a fresh process so its peak RSS is its own. Both
 * kinds print JSON lines; a peer's first line says it is ready, a measuring run's last line is its result.
 * Everything here is asynchronous, so the orchestrating process can host s3rver on its event loop meanwhile.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { RunningPeer } from '../src/adapters/local/peer-servers.ts';

export const benchScript = (name: string) => fileURLToPath(new URL(`./${name}.ts`, import.meta.url));
export { median, peakRssMb, round } from './measure.ts';

const launch = (script: string, args: (string | number)[], nodeArgs: string[] = []): ChildProcess =>
  spawn(process.execPath, [...nodeArgs, script, ...args.map(String)], { stdio: ['pipe', 'pipe', 'inherit'] });

/**
 * For a peer: exit once the bench that started it is gone. Its stdin is a pipe from that process, which closes
 * however the bench ends (a signal, a crash), so a peer holding gigabytes never outlives it.
 */
export function exitWithParent(): void {
  process.stdin.on('end', () => process.exit(0)).resume();
}

export interface Peer<T> {
  info: T;
  stop(): Promise<void>;
}

/** Starts a long-running child and waits for the JSON line it prints once it is ready. */
export function startPeer<T>(script: string, args: (string | number)[]): Promise<Peer<T>> {
  const child = launch(script, args);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${path.basename(script)} exited (${code}) before it was ready`)));
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => {
      resolve({
        info: JSON.parse(line) as T,
        stop: async () => {
          child.kill('SIGTERM');
          await exited;
        },
      });
    });
  });
}

/** Runs a measuring child to its end and parses the JSON line it prints last; `nodeArgs` go to node itself. */
export function runChild<T>(script: string, args: (string | number)[], nodeArgs: string[] = []): Promise<T> {
  const child = launch(script, args, nodeArgs);
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (s: string) => {
    out += s;
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`${path.basename(script)} ${args.join(' ')} exited with ${code}`));
      else resolve(JSON.parse(out.trim().split('\n').at(-1)!) as T);
    });
  });
}

/**
 * s3rver in this process with `bucket` created, on a temporary directory in memory (/dev/shm) where there is one:
 * gigabytes written and deleted within seconds would otherwise meet the disk's write-back at random moments.
 * `close` removes the directory.
 */
export async function startBenchS3(bucket: string): Promise<RunningPeer> {
  // Loaded here, not at the top: the measuring children import this module too, and s3rver (with dynalite beside
  // it) would add its modules to their resident memory.
  const { ensureBucket, startS3rver } = await import('../src/adapters/local/peer-servers.ts');
  const { s3ClientFor } = await import('../src/adapters/aws/s3-archive-store.ts');
  const base = existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();
  const directory = mkdtempSync(path.join(base, 'pulse-bench-s3-'));
  const remove = () => rmSync(directory, { recursive: true, force: true });
  // In memory, a directory left behind by an interrupted run would hold its gigabytes until the next reboot.
  const onSignal = () => {
    remove();
    process.exit(130);
  };
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
  const s3 = await startS3rver({ directory });
  const client = s3ClientFor({ endpoint: s3.endpoint });
  await ensureBucket(client, bucket);
  client.destroy();
  return {
    endpoint: s3.endpoint,
    close: async () => {
      process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
      await s3.close();
      remove();
    },
  };
}
