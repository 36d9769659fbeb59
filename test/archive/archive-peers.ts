/**
 * Archive runs over the real local peers (a small emulator and s3rver on 127.0.0.1): a config pointed at them, the
 * ports the local runtime builds (a fresh ReportingClient per run, optionally with its own `fetch`), and readers for
 * what landed in the bucket.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { ConsoleLogger } from '../../src/adapters/console-logger.ts';
import { type LocalPeers, startLocalPeers } from '../../src/adapters/local/local-peers.ts';
import type { ArchivePorts } from '../../src/archive/run-archive.ts';
import { type FetchLike, ReportingClient } from '../../src/client/index.ts';
import { parseConfig } from '../../src/config/load.ts';
import type { PulseConfig } from '../../src/config/schema.ts';
import { fixedClock } from '../../src/ports/clock.ts';
import { TEST_TODAY } from '../helpers/emulator-session.ts';

/** Noon UTC of the emulator's today: the run date of every test run (client data files are named after it). */
export const RUN_AT = `${TEST_TODAY}T12:00:00.000Z`;
export const NO_RAW_PRODUCT = '12345678901';
export const RAW_PRODUCT = '40000000017';

export interface ArchivePeers {
  peers: LocalPeers;
  config: PulseConfig;
  logLines: string[];
  ports(opts?: { fetch?: FetchLike }): ArchivePorts;
  /** Every key in the bucket, sorted. */
  keys(prefix?: string): Promise<string[]>;
  json<T = unknown>(key: string): Promise<T>;
  /** Replaces an object behind the job's back (S3 PutObject), as someone tampering with the bucket would. */
  overwrite(key: string, body: string): Promise<void>;
  remove(key: string): Promise<void>;
  close(): Promise<void>;
}

export async function startArchivePeers(
  opts: { productIds?: string[]; clients?: number; maxSessionsPerUser?: number } = {},
): Promise<ArchivePeers> {
  const workDir = await mkdtemp(join(tmpdir(), 'pulse-archive-'));
  const peers = await startLocalPeers({
    workDir,
    emulator: {
      clients: opts.clients ?? 200,
      seed: 7,
      today: TEST_TODAY,
      maxSessionsPerUser: opts.maxSessionsPerUser ?? 50,
    },
  });
  const emu = peers.emulator;
  const config = parseConfig({
    service: {
      baseUrl: emu.baseUrl,
      origin: emu.origin,
      headerPrefix: emu.headerPrefix,
      credentials: { source: 'env' },
      maxRetries: 1,
    },
    products: (opts.productIds ?? [NO_RAW_PRODUCT, RAW_PRODUCT]).map((id) => ({ id })),
    mail: { from: 'pulse@example.com', transport: { kind: 'smtp', host: peers.smtp.host, port: peers.smtp.port } },
    archive: { bucket: peers.bucket, prefix: 'pulse', concurrency: 8 },
    state: { tableName: peers.tableName },
  });
  const logLines: string[] = [];
  const logger = new ConsoleLogger({ service: 'pulse', level: 'debug', write: (line) => logLines.push(line) });
  const s3 = peers.s3;
  return {
    peers,
    config,
    logLines,
    ports: (o = {}) => ({
      client: new ReportingClient({
        baseUrl: emu.baseUrl,
        origin: emu.origin,
        headerPrefix: emu.headerPrefix,
        credentials: emu.credentials,
        maxRetries: 1,
        logger,
        ...(o.fetch ? { fetch: o.fetch } : {}),
      }),
      archive: peers.archive,
      clock: fixedClock(RUN_AT),
      logger,
    }),
    async keys(prefix = '') {
      const keys: string[] = [];
      for await (const o of peers.archive.list(prefix)) keys.push(o.key);
      return keys.sort();
    },
    async json<T>(key: string) {
      const bytes = await peers.archive.get(key);
      if (!bytes) throw new Error(`no object ${key}`);
      return JSON.parse(Buffer.from(bytes).toString('utf8')) as T;
    },
    async overwrite(key, body) {
      await s3.send(new PutObjectCommand({ Bucket: peers.bucket, Key: key, Body: body }));
    },
    async remove(key) {
      await s3.send(new DeleteObjectCommand({ Bucket: peers.bucket, Key: key }));
    },
    async close() {
      await peers.close();
      await rm(workDir, { recursive: true, force: true });
    },
  };
}
