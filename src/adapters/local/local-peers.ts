/**
 * `startLocalPeers`: everything Pulse talks to in AWS, in-process on 127.0.0.1, with state under one work directory
 * (default `.pulse/`) so a second run sees the first: the Reporting Service emulator, dynalite for the state table
 * (`<workDir>/dynamodb`, LevelDB), s3rver for the archive bucket (`<workDir>/s3`) and the SMTP sink
 * (`<workDir>/outbox`; it can be told to bounce or complain for some addresses: `mailReactions`) and the channel
 * sinks (Slack, Teams, webhooks; `<workDir>/outbox/channels`). Returns the
 * endpoints and the same adapters the Lambdas use, pointed at these peers.
 * dynalite has no TTL support (UpdateTimeToLive), so `expiresAt` is written but never acted on locally.
 *
 * A run killed mid-write must not brick the work directory: before s3rver starts, entries it left half-written are
 * moved to `<workDir>/s3-quarantine/<time>/` (s3rver-recovery.ts), one warning each; a LevelDB that does not open
 * fails the start with one line saying what to do (dynalite-state.ts).
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import { type Emulator, type EmulatorOptions, startEmulator } from '../../../emulator/index.ts';
import type { Logger } from '../../ports/logger.ts';
import { DynamoDbLedger, dynamoDocumentClientFor } from '../aws/dynamodb-ledger.ts';
import { DynamoDbSuppressionList } from '../aws/dynamodb-suppressions.ts';
import { S3ArchiveStore, s3ClientFor } from '../aws/s3-archive-store.ts';
import { type NodemailerMailer, smtpMailer } from '../mail/nodemailer-mailer.ts';
import type { ChannelFaultProfile } from './channel-faults.ts';
import { type ChannelSink, startChannelSink } from './channel-sink.ts';
import { assertDynaliteStateOpens } from './dynalite-state.ts';
import { LocalStateError, WorkDirBusyError } from './local-state-error.ts';
import { ensureBucket, ensureTable, startDynalite, startS3rver } from './peer-servers.ts';
import { type QuarantinedEntry, quarantineBrokenS3rverEntries } from './s3rver-recovery.ts';
import type { SinkReaction } from './sink-mail-events.ts';
import { type SmtpSink, startSmtpSink } from './smtp-sink.ts';
import { DEFAULT_WORK_DIR, liveLockHolder, WORK_DIR_LOCK } from './work-dir.ts';

export { LocalStateError, WorkDirBusyError } from './local-state-error.ts';

export { DEFAULT_WORK_DIR } from './work-dir.ts';
/** Where broken s3rver entries are moved, one folder per start that found any. */
export const S3_QUARANTINE_DIR = 's3-quarantine';

export interface LocalPeersOptions {
  /** @default '.pulse' */
  workDir?: string;
  /** Emulator options; its registry changes persist under `<workDir>/emulator` unless `dataDir` says otherwise. */
  emulator?: EmulatorOptions;
  /** @default 'pulse-state' */
  tableName?: string;
  /** @default 'pulse-archive' */
  bucket?: string;
  /** Gets one warning per broken s3rver entry moved aside at start. */
  logger?: Logger;
  /** The archive's multipart part size; s3rver takes parts below S3's 5 MiB minimum. @default 8 MiB */
  s3PartSize?: number;
  /** Addresses whose messages the SMTP sink bounces (hard) or reports as spam, after accepting them. */
  mailReactions?: Record<string, SinkReaction>;
  /** The channel sinks' random faults (`$PULSE_LOCAL_CHANNEL_FAULTS`, the chaos runner). */
  channelFaults?: ChannelFaultProfile;
}

export interface LocalPeers {
  workDir: string;
  emulator: Emulator;
  dynamodbEndpoint: string;
  s3Endpoint: string;
  smtp: { host: string; port: number };
  outboxDir: string;
  tableName: string;
  bucket: string;
  dynamodb: DynamoDBClient;
  s3: S3Client;
  sink: SmtpSink;
  /** The Slack, Teams and webhook stand-ins; every channel's URL points here in a local run. */
  channels: ChannelSink;
  ledger: DynamoDbLedger;
  suppressions: DynamoDbSuppressionList;
  archive: S3ArchiveStore;
  mailer: NodemailerMailer;
  /** Stops every peer and client; safe to call twice. */
  close(): Promise<void>;
}

export async function startLocalPeers(opts: LocalPeersOptions = {}): Promise<LocalPeers> {
  const workDir = resolve(opts.workDir ?? DEFAULT_WORK_DIR);
  const tableName = opts.tableName ?? 'pulse-state';
  const bucket = opts.bucket ?? 'pulse-archive';
  // Stopped in reverse order of starting, also when a later step fails.
  const closers: (() => unknown)[] = [];
  const closeAll = async () => {
    let firstError: unknown;
    for (const close of closers.splice(0).reverse()) {
      try {
        await close();
      } catch (e) {
        firstError ??= e; // keep stopping the rest
      }
    }
    if (firstError !== undefined) throw firstError;
  };
  try {
    await mkdir(workDir, { recursive: true });
    await lockWorkDir(workDir);
    closers.push(() => rm(join(workDir, WORK_DIR_LOCK), { force: true }));
    const dynamoDir = join(workDir, 'dynamodb');
    const s3Dir = join(workDir, 's3');
    const emulatorDir = join(workDir, 'emulator');
    await Promise.all([dynamoDir, s3Dir, emulatorDir].map((d) => mkdir(d, { recursive: true })));

    const emulator = await startEmulator({ dataDir: emulatorDir, ...opts.emulator });
    closers.push(() => emulator.close());

    await assertDynaliteStateOpens(dynamoDir);
    const dynamo = await startDynalite({ path: dynamoDir });
    closers.push(() => dynamo.close());
    const dynamodbEndpoint = dynamo.endpoint;
    const doc = dynamoDocumentClientFor({ endpoint: dynamodbEndpoint });
    closers.push(() => doc.destroy());
    await ensureTable(doc, tableName);

    recoverS3Store(s3Dir, join(workDir, S3_QUARANTINE_DIR), opts.logger);
    const s3rver = await startS3rver({ directory: s3Dir });
    closers.push(() => s3rver.close());
    const s3Endpoint = s3rver.endpoint;
    const s3 = s3ClientFor({ endpoint: s3Endpoint });
    closers.push(() => s3.destroy());
    await ensureBucket(s3, bucket);

    const outboxDir = join(workDir, 'outbox');
    const sink = await startSmtpSink({ outboxDir, ...(opts.mailReactions ? { reactions: opts.mailReactions } : {}) });
    closers.push(() => sink.close());
    const mailer = smtpMailer({ host: sink.host, port: sink.port, secure: false, pool: true });
    closers.push(() => mailer.close());
    const channels = await startChannelSink({
      outboxDir,
      ...(opts.channelFaults ? { faults: opts.channelFaults } : {}),
      ...(opts.logger ? { logger: opts.logger } : {}),
    });
    closers.push(() => channels.close());

    return {
      workDir,
      emulator,
      dynamodbEndpoint,
      s3Endpoint,
      smtp: { host: sink.host, port: sink.port },
      outboxDir,
      tableName,
      bucket,
      dynamodb: doc,
      s3,
      sink,
      channels,
      ledger: new DynamoDbLedger({ client: doc, tableName }),
      suppressions: new DynamoDbSuppressionList({ client: doc, tableName }),
      // s3rver serves objects without signatures, so its bucket URL makes working "view in browser" links.
      archive: new S3ArchiveStore({
        client: s3,
        bucket,
        publicBaseUrl: `${s3Endpoint}/${bucket}`,
        emulateConditionalWrites: true,
        ...(opts.s3PartSize ? { partSize: opts.s3PartSize, smallPartsAllowed: true } : {}),
      }),
      mailer,
      close: closeAll,
    };
  } catch (e) {
    await closeAll().catch(() => undefined); // the start failure is the one to report
    throw e;
  }
}

/** Moves the entries a killed run left half-written out of s3rver's way, saying so once per entry. */
function recoverS3Store(s3Dir: string, quarantineRoot: string, logger: Logger | undefined): void {
  // Colons are not allowed in Windows file names.
  const quarantineDir = join(quarantineRoot, new Date().toISOString().replaceAll(':', '-'));
  let moved: QuarantinedEntry[];
  try {
    moved = quarantineBrokenS3rverEntries(s3Dir, quarantineDir);
  } catch (e) {
    throw new LocalStateError(
      `${s3Dir}: the local S3 state cannot be checked (${(e as Error).message}); ` +
        `make it readable and writable, or move it aside to start with an empty bucket`,
    );
  }
  for (const m of moved) {
    logger?.warn(`local S3: moved a broken entry aside (${m.reason})`, { entry: m.entry, movedTo: m.movedTo });
  }
}

/**
 * A pid file: two runs on one work directory would share dynalite's LevelDB, which the second cannot open (and
 * dynalite reports that as an unhandled error that ends the process). A lock left by a dead process is taken over.
 */
async function lockWorkDir(workDir: string): Promise<void> {
  const path = join(workDir, WORK_DIR_LOCK);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(path, String(process.pid), { flag: 'wx' });
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const pid = await liveLockHolder(workDir);
    if (pid !== undefined) {
      throw new WorkDirBusyError(
        `${workDir} is in use by local peers of process ${pid}; stop them or use another --work-dir`,
      );
    }
    await rm(path, { force: true });
  }
  throw new WorkDirBusyError(`${workDir}: could not take the lock ${WORK_DIR_LOCK}`);
}
