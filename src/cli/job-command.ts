/**
 * Conventions every job command follows: `--config FILE` (or $PULSE_CONFIG), `--local` (in-process peers and the
 * bundled example config), `--work-dir DIR` (state of local runs, default .pulse/), `--json` (one result object on
 * stdout), `--dry-run`; exit 0 when the job did what it should, 1 when it held or failed something, 2 for usage.
 */
import { EmulatorConfigError } from '../../emulator/index.ts';
import { ConsoleLogger } from '../adapters/console-logger.ts';
import { DEFAULT_WORK_DIR, LocalStateError } from '../adapters/local/local-peers.ts';
import { awsPorts } from '../app/aws-runtime.ts';
import { LOCAL_EMULATOR_ENV, localEmulatorOptions, startLocalRuntime } from '../app/local-runtime.ts';
import { envCredentials } from '../app/service-client.ts';
import { ConfigError, configPath, loadConfig } from '../config/load.ts';
import type { PulseConfig } from '../config/schema.ts';
import type { DigestPorts } from '../jobs/digest/run-digest.ts';
import { exitCodeOf, type JobResult } from '../jobs/job-result.ts';
import { type CliIo, CommandError, UsageError } from './io.ts';

export const JOB_OPTIONS = {
  config: { type: 'string' },
  local: { type: 'boolean' },
  'work-dir': { type: 'string' },
  json: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export const JOB_OPTIONS_HELP = `  --config FILE      pulse.config.json to use (default $PULSE_CONFIG or ./pulse.config.json)
  --local            run against in-process local peers (emulator, DynamoDB, S3, SMTP sink);
                     uses the bundled examples/pulse.config.json unless --config is given
  --work-dir DIR     state of local runs (default ${DEFAULT_WORK_DIR}/)
  --json             print one JSON result object on stdout
  --dry-run          plan and check without sending or writing
  -h, --help         show this help`;

export interface JobFlags {
  config?: string | undefined;
  local?: boolean | undefined;
  'work-dir'?: string | undefined;
}

export interface JobRuntime {
  config: PulseConfig;
  ports: DigestPorts;
  /** Where local runs keep state and outputs. */
  workDir: string;
  close(): Promise<void>;
}

/**
 * Builds the runtime: local peers with --local, AWS adapters otherwise. Config errors become usage errors; a work
 * directory the local peers cannot use, a one-line command error.
 */
export async function openRuntime(flags: JobFlags, io: CliIo): Promise<JobRuntime> {
  const logger = new ConsoleLogger({ service: 'pulse', level: 'warn', write: (line) => io.stderr.write(`${line}\n`) });
  const workDir = flags['work-dir'] ?? DEFAULT_WORK_DIR;
  try {
    if (flags.local) {
      const emulator = localEmulatorOptions(io.env);
      const rt = await startLocalRuntime({ workDir, configPath: flags.config, logger, emulator });
      return { config: rt.config, ports: rt.ports, workDir, close: rt.close };
    }
    const config = loadConfig(configPath(flags.config, io.env));
    const ports = awsPorts(config, io.env);
    if (config.service.credentials.source === 'env') envCredentials(config.service.credentials, io.env)();
    return { config, ports, workDir, close: async () => {} };
  } catch (e) {
    if (e instanceof ConfigError) throw new UsageError(e.message);
    if (e instanceof EmulatorConfigError) throw new UsageError(`$${LOCAL_EMULATOR_ENV}: ${e.message}`);
    if (e instanceof LocalStateError) throw new CommandError(e.message);
    throw e;
  }
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
