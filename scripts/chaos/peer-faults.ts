/**
 * Loaded into a chaos run's `pulse` process with `node --import` (like test/fixtures/preload/kill-at.ts; nothing in
 * Pulse knows of it): faults of the local peers that the emulator's profile cannot reach, drawn from one seeded
 * stream, each at most `times` times, described by $PULSE_CHAOS_PEER_FAULTS (JSON, see `PeerFaults`):
 * - `s3Put`: a PutObject (the archive's conditional put) answered 500, before the write or after it (the write
 *   happened, the answer was lost);
 * - `dynamoClaim` / `dynamoComplete`: the ledger's claim (PutCommand) or complete (UpdateCommand recording done)
 *   answered 500, before or after the write;
 * - `smtp4xx` / `smtp5xx`: the SMTP sink answers the message's DATA with 451 / 550 (nothing stored);
 * - `smtpDrop`: the sink stores the message, then drops the connection without answering DATA.
 * - `s3Part` / `s3Complete`: an UploadPart or CompleteMultipartUpload answered 500, before or after the write (the
 *   runs that draw them upload in 8 KiB parts, $PULSE_LOCAL_S3_PART_SIZE, so the small chaos files go multipart).
 *
 * The channel sink plays its faults itself ($PULSE_LOCAL_CHANNEL_FAULTS, src/adapters/local/channel-faults.ts); this
 * only counts the ones it played, by the chaos kind names (`channelTimeout`, …), for the report.
 */
import { CompleteMultipartUploadCommand, PutObjectCommand, S3Client, UploadPartCommand } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import { Rng } from '../../emulator/data/rng.ts';
import { type ChannelFaultKind, ChannelFaults } from '../../src/adapters/local/channel-faults.ts';
import { LOCAL_CHANNEL_FAULTS_ENV } from '../../src/app/local-options.ts';

export const PEER_FAULTS_ENV = 'PULSE_CHAOS_PEER_FAULTS';
/** The line the run writes to stderr as it exits: how often each kind fired (a SIGKILLed run writes none). */
export const FIRED_LINE = 'chaos peer faults fired ';

export const PEER_FAULT_KINDS = [
  's3Put',
  's3Part',
  's3Complete',
  'dynamoClaim',
  'dynamoComplete',
  'smtp4xx',
  'smtp5xx',
  'smtpDrop',
] as const;
export type PeerFaultKind = (typeof PEER_FAULT_KINDS)[number];

/** The chaos names of the channel sink's faults (faults.ts draws them), and the sink's name of each. */
export const CHANNEL_FAULT_KINDS = [
  'channelRateLimit',
  'channelServerError',
  'channelRefuse',
  'channelTimeout',
  'channelDrop',
] as const;
export type ChannelChaosKind = (typeof CHANNEL_FAULT_KINDS)[number];
export const CHANNEL_FAULTS: Record<ChannelChaosKind, ChannelFaultKind> = {
  channelRateLimit: 'rateLimit',
  channelServerError: 'serverError',
  channelRefuse: 'refuse',
  channelTimeout: 'timeout',
  channelDrop: 'drop',
};
const CHAOS_NAME = Object.fromEntries(Object.entries(CHANNEL_FAULTS).map(([name, kind]) => [kind, name])) as Record<
  ChannelFaultKind,
  ChannelChaosKind
>;

export interface PeerFaults {
  seed: number;
  /** Per kind: the share of matching calls that fail, and how many may fail at most. */
  rules: Partial<Record<PeerFaultKind, { rate: number; times: number }>>;
}

/** What fired in this run, by kind; written to stderr as the run exits. */
const fired = new Map<PeerFaultKind | ChannelChaosKind, number>();
const text = process.env[PEER_FAULTS_ENV];
const channelFaults = process.env[LOCAL_CHANNEL_FAULTS_ENV];
if (text) install(JSON.parse(text) as PeerFaults);
if (channelFaults) countChannelFaults();
if (text || channelFaults) {
  process.once('exit', () => process.stderr.write(`${FIRED_LINE}${JSON.stringify(Object.fromEntries(fired))}\n`));
}

function countChannelFaults(): void {
  const next = ChannelFaults.prototype.next;
  ChannelFaults.prototype.next = function (this: ChannelFaults, ...args: Parameters<typeof next>) {
    const fault = next.apply(this, args);
    if (fault) fired.set(CHAOS_NAME[fault.kind], (fired.get(CHAOS_NAME[fault.kind]) ?? 0) + 1);
    return fault;
  };
}

function install(faults: PeerFaults): void {
  const rng = new Rng(faults.seed);
  const fire = (kind: PeerFaultKind): boolean => {
    const rule = faults.rules[kind];
    if (!rule || (fired.get(kind) ?? 0) >= rule.times || rng.next() >= rule.rate) return false;
    fired.set(kind, (fired.get(kind) ?? 0) + 1);
    return true;
  };
  const serverError = (name: string, kind: PeerFaultKind) =>
    Object.assign(new Error(`chaos: injected ${kind} failure (500)`), {
      name,
      $fault: 'server',
      $metadata: { httpStatusCode: 500 },
    });

  /** The call fails: before it reaches the peer, or after the peer did it (its answer lost). */
  const failing = async (kind: PeerFaultKind, name: string, call: () => Promise<unknown>): Promise<unknown> => {
    if (rng.chance(0.5)) await call();
    throw serverError(name, kind);
  };

  const s3Send = S3Client.prototype.send as (...args: unknown[]) => Promise<unknown>;
  S3Client.prototype.send = function (this: S3Client, ...args: unknown[]) {
    const command = args[0];
    const call = () => s3Send.apply(this, args);
    if (command instanceof PutObjectCommand && fire('s3Put')) return failing('s3Put', 'InternalError', call);
    if (command instanceof UploadPartCommand && fire('s3Part')) return failing('s3Part', 'InternalError', call);
    if (command instanceof CompleteMultipartUploadCommand && fire('s3Complete')) {
      return failing('s3Complete', 'InternalError', call);
    }
    return call();
  } as typeof S3Client.prototype.send;

  const dynamoSend = DynamoDBDocumentClient.prototype.send as (...args: unknown[]) => Promise<unknown>;
  DynamoDBDocumentClient.prototype.send = function (this: DynamoDBDocumentClient, ...args: unknown[]) {
    const command = args[0];
    const call = () => dynamoSend.apply(this, args);
    if (command instanceof PutCommand && fire('dynamoClaim'))
      return failing('dynamoClaim', 'InternalServerError', call);
    const completes =
      command instanceof UpdateCommand && command.input.ExpressionAttributeValues?.[':state'] === 'done';
    if (completes && fire('dynamoComplete')) return failing('dynamoComplete', 'InternalServerError', call);
    return call();
  } as typeof DynamoDBDocumentClient.prototype.send;

  type OnData = (
    stream: SMTPServerDataStream,
    session: SMTPServerSession,
    callback: (e?: Error | null) => void,
  ) => void;
  type Connection = { session?: SMTPServerSession; _socket?: { destroy(): void } };
  const listen = SMTPServer.prototype.listen as (...args: unknown[]) => unknown;
  SMTPServer.prototype.listen = function (this: SMTPServer & { onData: OnData }, ...args: unknown[]) {
    const onData = this.onData;
    const connections = (this as unknown as { connections: Set<Connection> }).connections;
    this.onData = (stream, session, callback) => {
      const refuse = (code: number, message: string) => {
        stream.resume();
        callback(Object.assign(new Error(message), { responseCode: code }));
      };
      if (fire('smtp4xx')) return refuse(451, 'chaos: temporary failure, try again later');
      if (fire('smtp5xx')) return refuse(550, 'chaos: message refused');
      if (fire('smtpDrop')) {
        // Stored (the message arrived), then the connection is gone before the answer to DATA.
        return onData.call(this, stream, session, () => {
          for (const c of connections) if (c.session === session) c._socket?.destroy();
        });
      }
      return onData.call(this, stream, session, callback);
    };
    return listen.apply(this, args);
  } as typeof SMTPServer.prototype.listen;
}
