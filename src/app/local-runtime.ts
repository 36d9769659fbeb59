/**
 * Pulse on one machine: the local peers (emulator, dynalite, s3rver, SMTP sink) started in-process and the same
 * ports the Lambdas use, pointed at them. The config is the user's (or the bundled example), with the service,
 * table and bucket redirected to the peers. State lives in the work directory, so a second run sees the first.
 * The config is loaded (and so checked) by the caller before this starts anything: a bad config, an unknown
 * `--digest` or a bad `--faults` file leaves no work directory behind. `$PULSE_LOCAL_EMULATOR` sets the emulator's
 * data set (seed, clients, today) for runs that need another one, e.g. client data larger than one multipart part;
 * the emulator also serves every product the config names (emulatorProductsOf), with a data set of its own.
 * `$PULSE_LOCAL_BOUNCE` / `$PULSE_LOCAL_COMPLAIN` make the SMTP sink bounce or complain for some addresses;
 * `settleMailEvents` then runs the mail-events job over what it queued (local-mail-events.ts).
 */
import type { EmulatorOptions } from '../../emulator/index.ts';
import { DynamoDbLedger } from '../adapters/aws/dynamodb-ledger.ts';
import { DynamoDbUsageAlertStates } from '../adapters/aws/dynamodb-usage-alert-states.ts';
import { HttpChannelPoster } from '../adapters/http/channel-poster.ts';
import type { ChannelFaultProfile } from '../adapters/local/channel-faults.ts';
import { type LocalPeers, startLocalPeers } from '../adapters/local/local-peers.ts';
import { ReportFolder } from '../adapters/local/report-folder.ts';
import type { SinkReaction } from '../adapters/local/sink-mail-events.ts';
import { Archive, type PulseConfig } from '../config/schema.ts';
import type { JobResult } from '../core/job-result.ts';
import { systemClock } from '../ports/clock.ts';
import type { JobPorts } from '../ports/job-ports.ts';
import type { Logger } from '../ports/logger.ts';
import { settleSinkMailEvents } from './local-mail-events.ts';
import { emulatorProductsOf } from './local-options.ts';
import { reportingClientFor } from './service-client.ts';

export { EXAMPLE_CONFIG, LOCAL_EMULATOR_ENV, localEmulatorOptions } from './local-options.ts';

export interface LocalRuntime {
  config: PulseConfig;
  peers: LocalPeers;
  ports: JobPorts;
  /** The mail-events job over the bounces and complaints the sink queued; undefined when there were none. */
  settleMailEvents(): Promise<JobResult | undefined>;
  close(): Promise<void>;
}

export async function startLocalRuntime(opts: {
  workDir: string;
  /** The user's config (or the bundled example), already loaded. */
  config: PulseConfig;
  logger: Logger;
  /** Options of the in-process emulator (`$PULSE_LOCAL_EMULATOR`, `--faults`). */
  emulator?: EmulatorOptions | undefined;
  /** The local archive's multipart part size (`$PULSE_LOCAL_S3_PART_SIZE`). */
  s3PartSize?: number | undefined;
  /** Addresses the SMTP sink bounces or complains for (`$PULSE_LOCAL_BOUNCE`, `$PULSE_LOCAL_COMPLAIN`). */
  mailReactions?: Record<string, SinkReaction> | undefined;
  /** Random faults of the channel sinks (`$PULSE_LOCAL_CHANNEL_FAULTS`). */
  channelFaults?: ChannelFaultProfile | undefined;
}): Promise<LocalRuntime> {
  const userConfig = opts.config;
  const peers = await startLocalPeers({
    workDir: opts.workDir,
    logger: opts.logger,
    emulator: { ...opts.emulator, products: emulatorProductsOf(userConfig) },
    ...(opts.s3PartSize ? { s3PartSize: opts.s3PartSize } : {}),
    ...(opts.mailReactions ? { mailReactions: opts.mailReactions } : {}),
    ...(opts.channelFaults ? { channelFaults: opts.channelFaults } : {}),
  });
  const emu = peers.emulator;
  const config: PulseConfig = {
    ...userConfig,
    service: { ...userConfig.service, baseUrl: emu.baseUrl, origin: emu.origin, headerPrefix: emu.headerPrefix },
    archive: Archive.parse({ ...userConfig.archive, bucket: peers.bucket }),
    state: { tableName: peers.tableName },
  };
  const client = reportingClientFor(config.service, () => emu.credentials, opts.logger);
  const ports = {
    client,
    mailer: peers.mailer,
    // The work-dir lock (local-peers.ts) proves no other live process uses this ledger: a claim found in it was
    // left by a run that died, so it is `unknown` at once (lease 0) instead of "in progress" for 15 minutes.
    ledger: new DynamoDbLedger({ client: peers.dynamodb, tableName: peers.tableName, defaultLeaseSeconds: 0 }),
    suppressions: peers.suppressions,
    archive: peers.archive,
    clock: systemClock,
    logger: opts.logger,
    // The full report beside the emails: the local S3 that also keeps a copy is gone after the run.
    pages: new ReportFolder(peers.outboxDir),
    // Every channel posts to the local sinks, whatever secret the config names: a local run reaches no service.
    channels: { secrets: peers.channels.secrets, poster: new HttpChannelPoster() },
    usageAlertStates: new DynamoDbUsageAlertStates({ client: peers.dynamodb, tableName: peers.tableName }),
  } satisfies JobPorts;
  return {
    config,
    peers,
    ports,
    settleMailEvents: () => settleSinkMailEvents(config, ports, peers.sink),
    close: () => peers.close(),
  };
}
