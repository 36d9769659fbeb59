/**
 * Conventions every job command follows: `--config FILE` (or $PULSE_CONFIG), `--local` (in-process peers and the
 * bundled example config), `--work-dir DIR` (state of local runs, default .pulse/), `--faults FILE` (with --local:
 * the emulator's fault profile), `--json` (one result object on stdout), `--dry-run`, `--verbose`; exit codes in
 * JOB_EXIT_CODES_HELP (and failure.ts). A local run whose SMTP sink bounced or complained for some addresses
 * (`$PULSE_LOCAL_BOUNCE`, `$PULSE_LOCAL_COMPLAIN`) then runs the mail-events job over those events and reports it
 * too (a second result line).
 *
 * A job runs in two steps so that nothing starts for a run that cannot work: `loadJob` reads and checks everything
 * given (config, `--faults`; the command then checks its ids against the config), every problem a usage error;
 * `runJob` then starts the peers (or builds the AWS adapters), signs in, runs the job and turns any failure into one
 * line and an exit code.
 */

import { EmulatorConfigError, type EmulatorOptions, resolveOptions } from '../../emulator/options.ts';
import { ConsoleLogger } from '../adapters/console-logger.ts';
import type { ChannelFaultProfile } from '../adapters/local/channel-faults.ts';
import type { SinkReaction } from '../adapters/local/sink-mail-events.ts';
import { DEFAULT_WORK_DIR } from '../adapters/local/work-dir.ts';
import { awsPorts } from '../app/aws-runtime.ts';
import { loadLocalRuntime } from '../app/load-local-runtime.ts';
import {
  EXAMPLE_CONFIG,
  LOCAL_EMULATOR_ENV,
  localChannelFaults,
  localEmulatorOptions,
  localMailReactions,
  localS3PartSize,
} from '../app/local-options.ts';
import { envCredentials } from '../app/service-client.ts';
import { ConfigError, configPath, loadConfig } from '../config/load.ts';
import type { PulseConfig } from '../config/schema.ts';
import { exitCodeOf, type JobResult } from '../core/job-result.ts';
import type { JobPorts } from '../ports/job-ports.ts';
import { exitCodesHelp } from './exit-codes.ts';
import { reportFailure } from './failure.ts';
import { faultsOption } from './faults-option.ts';
import { type CliIo, UsageError } from './io.ts';

export const JOB_OPTIONS = {
  config: { type: 'string' },
  local: { type: 'boolean' },
  'work-dir': { type: 'string' },
  faults: { type: 'string' },
  json: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  verbose: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export const JOB_OPTIONS_HELP = `  --config FILE      pulse.config.json to use (default $PULSE_CONFIG or ./pulse.config.json)
  --local            run against in-process local peers (emulator, DynamoDB, S3, SMTP sink; they need
                     the dev dependencies); uses the bundled examples/pulse.config.json unless --config is given
  --work-dir DIR     state of local runs (default ${DEFAULT_WORK_DIR}/)
  --faults FILE      with --local: run the emulator with this fault profile (see \`pulse emulator --faults\`)
  --json             print one JSON result object on stdout (a second one, the mail-events job's, when a
                     --local run's SMTP sink bounced or complained: $PULSE_LOCAL_BOUNCE, $PULSE_LOCAL_COMPLAIN)
  --dry-run          plan and check without sending or writing
  --verbose          more log lines, and the stack trace of a failure
  -h, --help         show this help`;

/** The exit codes of the job commands (exit-codes.ts), for their --help. */
export const JOB_EXIT_CODES_HELP = exitCodesHelp({ 0: 'the job did what it should' });

export interface JobFlags {
  config?: string | undefined;
  local?: boolean | undefined;
  'work-dir'?: string | undefined;
  faults?: string | undefined;
  json?: boolean | undefined;
  verbose?: boolean | undefined;
}

/** A checked job invocation: nothing has been started or written yet. */
export interface JobSetup {
  config: PulseConfig;
  flags: JobFlags;
  /** Where local runs keep state and outputs. */
  workDir: string;
  /** Options of the in-process emulator (--local): `$PULSE_LOCAL_EMULATOR` and `--faults`, checked. */
  emulator: EmulatorOptions | undefined;
  /** The local archive's multipart part size (--local): `$PULSE_LOCAL_S3_PART_SIZE`, checked. */
  s3PartSize: number | undefined;
  /** Whom the local SMTP sink bounces or complains for (--local): `$PULSE_LOCAL_BOUNCE`, `$PULSE_LOCAL_COMPLAIN`. */
  mailReactions: Record<string, SinkReaction> | undefined;
  /** The channel sinks' random faults (--local): `$PULSE_LOCAL_CHANNEL_FAULTS`. */
  channelFaults: ChannelFaultProfile | undefined;
}

export interface JobRuntime {
  config: PulseConfig;
  ports: JobPorts;
  /** Where local runs keep state and outputs. */
  workDir: string;
  /** A local run's mail events, settled after its job (local-mail-events.ts); absent in AWS (the Lambda does it). */
  settleMailEvents?: () => Promise<JobResult | undefined>;
}

/**
 * Step 1: the config (the bundled example with --local and no --config), --faults and $PULSE_LOCAL_EMULATOR, read
 * and checked; the service's credentials variables too, unless the command calls no service (`signIn: false`).
 */
export function loadJob(flags: JobFlags, io: CliIo, opts: { signIn?: boolean } = {}): JobSetup {
  if (flags.faults !== undefined && !flags.local)
    throw new UsageError('--faults goes with --local (it is a fault profile for the in-process emulator)');
  const faults = faultsOption(flags.faults);
  try {
    const config = loadConfig(flags.local ? (flags.config ?? EXAMPLE_CONFIG) : configPath(flags.config, io.env));
    if (!flags.local && opts.signIn !== false && config.service.credentials.source === 'env')
      envCredentials(config.service.credentials, io.env)();
    const emulator = flags.local ? { ...localEmulatorOptions(io.env), ...(faults ? { faults } : {}) } : undefined;
    if (emulator) resolveOptions(emulator); // refused here, before the work directory is touched
    const s3PartSize = flags.local ? localS3PartSize(io.env) : undefined;
    const mailReactions = flags.local ? localMailReactions(io.env) : undefined;
    const channelFaults = flags.local ? localChannelFaults(io.env) : undefined;
    const workDir = flags['work-dir'] ?? DEFAULT_WORK_DIR;
    return { config, flags, workDir, emulator, s3PartSize, mailReactions, channelFaults };
  } catch (e) {
    if (e instanceof ConfigError) throw new UsageError(e.message);
    if (e instanceof EmulatorConfigError) throw new UsageError(`$${LOCAL_EMULATOR_ENV}: ${e.message}`);
    throw e;
  }
}

/** `--digest`/`--product` ids checked against the config before anything starts: an unknown one is a usage error. */
export function requireKnown(flag: string, ids: string[] | undefined, known: string[], where: string): void {
  for (const id of ids ?? []) {
    if (!known.includes(id)) throw new UsageError(`${flag} ${id}: not in ${where} (${known.join(', ') || 'none'})`);
  }
}

/**
 * Step 2: starts the runtime (local peers with --local, AWS adapters otherwise), signs in first unless the job
 * needs no service (`signIn: false`), runs `job` and closes everything. Wrong credentials or an unreachable service
 * thus end the run before the job holds or fails anything, and the job's own session reuses this one. Any failure
 * but a usage error is reported as one line (failure.ts) and its exit code returned.
 */
export async function runJob(
  command: string,
  setup: JobSetup,
  io: CliIo,
  job: (runtime: JobRuntime) => Promise<number>,
  opts: { signIn?: boolean } = {},
): Promise<number> {
  const { flags, workDir } = setup;
  const verbose = flags.verbose === true;
  const logger = new ConsoleLogger({
    service: 'pulse',
    level: verbose ? 'info' : 'warn',
    write: (line) => io.stderr.write(`${line}\n`),
  });
  try {
    const runtime = await startRuntime(setup, logger, io.env);
    try {
      if (opts.signIn !== false) await runtime.ports.client.signIn();
      const code = await job(runtime);
      const events = await runtime.settleMailEvents?.();
      return events ? Math.max(code, report(events, flags.json, io)) : code;
    } finally {
      await runtime.ports.client.logout().catch(() => undefined); // the job's outcome is the one to report
      await runtime.close();
    }
  } catch (e) {
    if (e instanceof UsageError) throw e;
    return reportFailure(command, e, io, { verbose, localWorkDir: flags.local ? workDir : undefined });
  }
}

async function startRuntime(
  setup: JobSetup,
  logger: ConsoleLogger,
  env: CliIo['env'],
): Promise<JobRuntime & { close(): Promise<void> }> {
  const { config, flags, workDir, emulator, s3PartSize, mailReactions, channelFaults } = setup;
  if (flags.local) {
    // Loaded only here: the local peers are devDependencies (load-local-runtime.ts).
    const { startLocalRuntime } = await loadLocalRuntime();
    const rt = await startLocalRuntime({
      workDir,
      config,
      logger,
      emulator,
      s3PartSize,
      mailReactions,
      channelFaults,
    });
    return { config: rt.config, ports: rt.ports, workDir, settleMailEvents: rt.settleMailEvents, close: rt.close };
  }
  return { config, ports: awsPorts(config, env), workDir, close: async () => {} };
}

/** Prints the result (one JSON line with --json, else a short summary) and returns the exit code. */
export function report(result: JobResult, json: boolean | undefined, io: CliIo): number {
  if (json) io.stdout.write(`${JSON.stringify(result)}\n`);
  else {
    const counts = Object.entries(result.counts)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
    io.stdout.write(`${result.job}: ${result.ok ? 'ok' : 'NOT ok'} (${counts})\n`);
    // The full list is in --json; people get the first few.
    for (const o of result.outputs.slice(0, 4)) io.stdout.write(`  ${o}\n`);
    if (result.outputs.length > 4) io.stdout.write(`  … and ${result.outputs.length - 4} more (--json lists all)\n`);
    for (const e of result.errors) io.stderr.write(`  error: ${e}\n`);
  }
  return exitCodeOf(result);
}
