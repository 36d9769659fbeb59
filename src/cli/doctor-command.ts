/**
 * `pulse doctor --config FILE`: checks a deployment's config and what it points at from a workstation, one plain
 * line per check (src/doctor/), exit 0 when none failed, else the first failure's exit code (failure.ts).
 * `--contract` instead holds every operation's answer against the interface document (src/doctor/contract-check.ts);
 * `--send-test CHANNEL` posts one test message to a channel (src/doctor/send-test.ts).
 */
import { writeFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { SNSClient } from '@aws-sdk/client-sns';
import { s3ClientFor } from '../adapters/aws/s3-archive-store.ts';
import { ConsoleLogger } from '../adapters/console-logger.ts';
import { DEFAULT_WORK_DIR } from '../adapters/local/work-dir.ts';
import { channelPortsFor } from '../app/channels.ts';
import { EXAMPLE_CONFIG } from '../app/local-options.ts';
import { mailerFor } from '../app/mailer.ts';
import { credentialsFor, reportingClientFor } from '../app/service-client.ts';
import { ConfigError, configPath, loadConfig } from '../config/load.ts';
import { deployNames, type PulseConfig } from '../config/schema.ts';
import { ChannelCheckError, type ChannelFailureReason, channelChecks } from '../doctor/channel-checks.ts';
import { startLocalSendTarget } from '../doctor/channel-local-sink.ts';
import { type OperationOutcome, recordingClient, runContractCheck } from '../doctor/contract-check.ts';
import { contractReport, outcomeLines, summarize, summaryLine } from '../doctor/contract-report.ts';
import { type CheckResult, type CheckStatus, type DoctorClients, runDoctor } from '../doctor/doctor.ts';
import { type SendTestTarget, sendTestChecks } from '../doctor/send-test.ts';
import type { Logger } from '../ports/logger.ts';
import { type ExitCode, exitCodesHelp } from './exit-codes.ts';
import { describeFailure, masker } from './failure.ts';
import { type CliIo, EXIT, parseFlags, UsageError } from './io.ts';
import { requireKnown } from './job-command.ts';

/** The doctor checks the real resources: its hints never suggest `--local`. */
const NO_LOCAL = { noLocalMode: true } as const;

export const DOCTOR_HELP = `Usage: pulse doctor [--config FILE] [--stack NAME] [--bucket NAME] [--table NAME] [--alarm-topic ARN] [--verbose]
       pulse doctor --contract [--config FILE] [--report FILE] [--verbose]
       pulse doctor --send-test CHANNEL [--config FILE] [--stack NAME] [--local [--work-dir DIR]] [--verbose]

Checks from a workstation what a deployment of Pulse needs, one line per check, in this order:
  config              the config file is valid
  service reachable   service.baseUrl answers (DNS, TCP, TLS, HTTP)
  origin              the service accepts service.origin
  sign-in, sign-out   the credentials from service.credentials (environment or Secrets Manager) sign in; the
                      session is ended again
  product <id> …      each product is accessible, with the features the config uses: licenses (the license key
                      search), each archive kind (its export files listing; client data: the client property list)
  stack               the deployed stack's outputs (DescribeStacks): they name the bucket, table and alarm topic
                      checked below (with --stack, or a config with a "deploy" section)
  archive bucket      HeadBucket (skipped without "archive")
  state table         DescribeTable (skipped without "state")
  suppressed …        each address Pulse no longer mails (a hard bounce or a complaint: since when, why, which
                      delivery, the command that clears it), a warning each; read from the state table
  SES identity        mail.from (or its domain) verified, and the account out of the SES sandbox (transport SES)
  SMTP                connect and EHLO, and the login with a credentials secret (transport SMTP); nothing is sent
  alarm topic         at least one confirmed subscriber (a pending email subscription receives nothing); pending
                      ones are named
  <kind> <id>         each channel ("Slack channel ops-alerts", "webhook billing"): its secret is read (environment
                      variable or Secrets Manager) and holds what the kind needs; the URL fits the kind (Slack:
                      hooks.slack.com/services/… or /triggers/…; Teams: a Workflows host, *.logic.azure.com or
                      *.powerplatform.com; another host is a warning; a retired Office 365 connector,
                      *.webhook.office.com, fails); the sections that name it (none: a warning, "configured but
                      unused"). Nothing is posted; the host is printed, never the URL's path or the secret

  ✓ passed   ✗ failed: what to do   ! works, but worth knowing   - skipped (not configured, or a check before failed)

Options:
  --config FILE   pulse.config.json to check (default $PULSE_CONFIG or ./pulse.config.json)
  --stack NAME    the deployed stack (default deploy.stackName when the config has a "deploy" section)
  --bucket NAME   check this archive bucket instead of the stack's (or archive.bucket)
  --table NAME    check this state table instead of the stack's (or state.tableName)
  --alarm-topic ARN  check this alarm topic instead of the stack's
  --send-test CHANNEL  instead of the checks: the channel's line, then post ONE test message to it (event
                  channel.test, "Pulse test message", naming the config, the stack and the time) and print what came
                  of it: sent (the status), refused (e.g. 404 channel_not_found), rate limited, unknown (no answer in
                  time or a 5xx: it may have arrived, check the channel) or not sent. One post, no retry. A webhook's
                  event is signed like any other; its webhook-id is printed, to find in the receiver's log. The test
                  message is on demand: it is not recorded in the ledger, and each has a new webhook-id
  --local         with --send-test: post to the local channel sink (as \`pulse start\` does), not the configured
                  channel; only the sink starts, and the outbox file is printed. Without --config: the bundled example
  --work-dir DIR  with --local: the work directory whose outbox gets it (default ${DEFAULT_WORK_DIR}/)
  --verbose       the stack trace of each failed check, on stderr
  -h, --help      show this help

--contract holds the Reporting Service to its interface document (src/api/openapi.json), the first thing to run
against a new service. It signs in with service.credentials, sends every read-only operation one small request
for the config's first product (raw event files: the first product with raw data export), checks each answer —
sign-in and logout included — against the document, and lists all 33 operations, one line each, or one line per
difference (field path, what the document says, what came):
  ✓ conforms   ✗ differs (or failed)   - skipped: writes (license key insert and update) and the whole client
  export are never sent   ! not checked (a request it needs could not be built, or an error the document allows)
Logout runs last and ends only the check's own session. Nothing is written to the service or downloaded.
  --report FILE   also write the outcomes as JSON, to attach to a bug report (default: pulse-contract-report.json
                  in the current folder, written only when something differs). No credential, cookie or CSRF
                  value is in it or in the output.

AWS credentials and region come from the usual AWS sources (AWS_PROFILE, AWS_REGION, …). Service calls are made
once each (no retries) with a timeout of at most 10 s.

${exitCodesHelp(
  {
    0: 'no check failed (warnings and skipped checks allowed)',
    1: 'a check failed for another reason (an SES identity not verified, the SES sandbox, no alarm subscriber, …)',
    2: 'the config is invalid, or a flag: nothing was checked',
    3: "credentials refused or missing: service.credentials, a channel's secret, or AWS credentials or region here",
    4: 'a service answered with an error (an unknown product, a missing bucket or table)',
  },
  "With several failed checks, the first one's code.",
)}
With --contract: 4 when an answer (or the service's refusal of a documented request) differs from the document,
as when a job meets an answer it cannot read; else 3 (sign-in refused), 5 (unreachable) or 4 (an error answer) for
an operation that could not be checked; 0 when every operation checked conforms.
With --send-test: 0 sent; 3 the channel's secret is missing or wrong (nothing posted); 4 refused, rate limited or
a 5xx (unknown); 5 not reached, or no answer in time (unknown).
`;

const OPTIONS = {
  config: { type: 'string' },
  stack: { type: 'string' },
  bucket: { type: 'string' },
  table: { type: 'string' },
  'alarm-topic': { type: 'string' },
  contract: { type: 'boolean' },
  report: { type: 'string' },
  'send-test': { type: 'string' },
  local: { type: 'boolean' },
  'work-dir': { type: 'string' },
  verbose: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const MARK: Record<CheckStatus, string> = { ok: '✓', fail: '✗', warn: '!', skip: '-' };

/** A single attempt per call, and no long waits: a check reports what happens, it does not ride it out. */
const DOCTOR_TIMEOUT_MS = 10_000;

export async function doctorCommand(args: string[], io: CliIo): Promise<number> {
  const { values: flags } = parseFlags('doctor', args, OPTIONS);
  if (flags.help) {
    io.stdout.write(DOCTOR_HELP);
    return EXIT.ok;
  }
  const sendTest = flags['send-test'];
  if (sendTest === undefined && (flags.local || flags['work-dir'] !== undefined))
    throw new UsageError('--local and --work-dir go with --send-test (the checks are of the real resources)');
  if (sendTest !== undefined && flags.contract) throw new UsageError('--send-test and --contract are separate runs');
  const mask = masker(io.env);
  const print = (line: string) => io.stdout.write(`${mask(line)}\n`);
  // As every --local command: the bundled example unless --config names another.
  const path = flags.local ? (flags.config ?? EXAMPLE_CONFIG) : configPath(flags.config, io.env);
  let config: PulseConfig;
  try {
    config = loadConfig(path);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    print(`${MARK.fail} config: ${describeFailure(e, NO_LOCAL).line}`);
    return EXIT.usage;
  }
  print(`${MARK.ok} config: ${path} is valid (${summary(config)})`);
  if (flags.contract) return contractCommand(config, io, flags);
  if (flags.report !== undefined) throw new UsageError('--report goes with --contract');
  const channelIds = config.channels.map((c) => c.id);
  if (sendTest !== undefined) requireKnown('--send-test', [sendTest], channelIds, 'channels');

  const clients = doctorClients(config, io, flags);
  let local: (SendTestTarget & { close(): Promise<void> }) | undefined;
  try {
    if (flags.local) local = await startLocalSendTarget(flags['work-dir'] ?? DEFAULT_WORK_DIR, io.env, clients.logger);
  } catch (e) {
    clients.close();
    throw e;
  }
  const checks =
    sendTest !== undefined
      ? sendTestChecks(config, config.channels.find((c) => c.id === sendTest)!, local ?? clients, {
          logger: clients.logger,
          // A local run is no stack's.
          sender: { config: basename(path), stack: local ? undefined : clients.stackName },
        })
      : everyCheck(config, clients);
  let firstFailure: number | undefined;
  const counts: Record<CheckStatus, number> = { ok: 1, fail: 0, warn: 0, skip: 0 };
  const report = (check: CheckResult) => {
    counts[check.status]++;
    print(lineOf(check));
    if (check.status !== 'fail') return;
    firstFailure ??= exitCodeOf(check);
    if (flags.verbose && check.error instanceof Error) io.stderr.write(`${mask(check.error.stack ?? '')}\n`);
  };
  try {
    for await (const check of checks) report(check);
  } catch (e) {
    // A check that threw instead of reporting (a bug): its line, and the summary still, never a half list.
    report({ status: 'fail', name: 'doctor', detail: 'stopped before the remaining checks', error: e });
  } finally {
    clients.close();
    await local?.close();
  }
  const total = counts.ok + counts.fail + counts.warn + counts.skip;
  print(
    counts.fail === 0
      ? `doctor: no check failed (${counts.ok} passed, ${counts.warn} warnings, ${counts.skip} skipped)`
      : `doctor: ${counts.fail} of ${total} checks failed`,
  );
  return firstFailure ?? EXIT.ok;
}

/** The doctor's checks, then one line per channel (nothing posted). */
async function* everyCheck(
  config: PulseConfig,
  clients: ReturnType<typeof doctorClients>,
): AsyncGenerator<CheckResult> {
  yield* runDoctor(config, clients);
  yield* channelChecks(config, clients.ports.secrets, { deployed: clients.stackName !== undefined });
}

/** The report's file when `--report` is not given: written only when something differs. */
export const DEFAULT_CONTRACT_REPORT = 'pulse-contract-report.json';

/**
 * `--contract`: one line per operation as each is judged, the summary, and the report. Exit 4 when anything
 * differs (the service answers other than documented: a service error, like a ResponseShapeError in a job), else the
 * first failure's code of an operation that could not be checked.
 */
async function contractCommand(
  config: PulseConfig,
  io: CliIo,
  flags: { report?: string | undefined; verbose?: boolean | undefined },
): Promise<number> {
  const clients = doctorClients(config, io, flags);
  const { client, recorder } = recordingClient(clients.service);
  const envMask = masker(io.env);
  const mask = (text: string) => recorder.secrets.mask(envMask(text));
  const outcomes: OperationOutcome[] = [];
  let firstFailure: number | undefined;
  const productIds = config.products.map((p) => p.id);
  try {
    for await (const outcome of runContractCheck({ client, recorder, productIds })) {
      outcomes.push(outcome);
      const failed = outcome.error !== undefined && outcome.result !== 'conforms';
      const why = failed ? describeFailure(outcome.error, NO_LOCAL).line : undefined;
      for (const line of outcomeLines(outcome, why)) io.stdout.write(`${mask(line)}\n`);
      if (failed) firstFailure ??= exitCodeOf({ status: 'fail', name: '', detail: '', error: outcome.error });
      if (failed && flags.verbose && outcome.error instanceof Error)
        io.stderr.write(`${mask(outcome.error.stack ?? '')}\n`);
    }
  } finally {
    clients.close();
  }
  const counts = summarize(outcomes);
  const file = flags.report ?? (counts.differs > 0 ? DEFAULT_CONTRACT_REPORT : undefined);
  let written = '';
  if (file !== undefined) {
    const report = contractReport(outcomes, { baseUrl: config.service.baseUrl, productIds, checkedAt: new Date() });
    writeFileSync(resolve(file), `${mask(JSON.stringify(report, null, 2))}\n`);
    written = ` (report: ${file})`;
  }
  io.stdout.write(`${mask(summaryLine(counts))}${written}\n`);
  return counts.differs > 0 ? EXIT.service : (firstFailure ?? EXIT.ok);
}

/**
 * A failed check's exit code. 2 is the config file's and the flags' (nothing was checked): a check that fails for
 * want of this workstation's setup (the credentials' environment variables, an AWS region) is a credentials
 * failure (3), like AWS credentials that are missing.
 */
function exitCodeOf(check: CheckResult): number {
  if (check.error === undefined) return EXIT.failure;
  if (check.error instanceof ChannelCheckError) return CHANNEL_EXIT[check.error.reason];
  const { code } = describeFailure(check.error, NO_LOCAL);
  return code === EXIT.usage ? EXIT.auth : code;
}

/** A channel check's or test message's failure: its secret is the channel's credentials; its answer a service's. */
const CHANNEL_EXIT: Record<ChannelFailureReason, ExitCode> = {
  secret: EXIT.auth,
  answer: EXIT.service,
  network: EXIT.network,
  other: EXIT.failure,
};

function lineOf(check: CheckResult): string {
  const why = check.error !== undefined && !check.explained ? `: ${describeFailure(check.error, NO_LOCAL).line}` : '';
  return `${MARK[check.status]} ${check.name}: ${check.detail}${why}`;
}

function summary(config: PulseConfig): string {
  const parts = [
    `${config.products.length} product${config.products.length === 1 ? '' : 's'}`,
    `${config.digests.length} digest${config.digests.length === 1 ? '' : 's'}`,
    ...(config.archive ? ['archive'] : []),
    ...(config.licenses ? ['licenses'] : []),
    `mail via ${config.mail.transport.kind.toUpperCase()}`,
  ];
  return parts.join(', ');
}

function doctorClients(
  config: PulseConfig,
  io: CliIo,
  flags: {
    stack?: string | undefined;
    bucket?: string | undefined;
    table?: string | undefined;
    'alarm-topic'?: string | undefined;
    verbose?: boolean | undefined;
  },
): DoctorClients & SendTestTarget & { logger: Logger; close(): void } {
  const logger = new ConsoleLogger({
    service: 'pulse',
    level: flags.verbose ? 'info' : 'error',
    write: (line) => (flags.verbose ? io.stderr.write(`${line}\n`) : undefined),
  });
  const secrets = new SecretsManagerClient({});
  const { credentials } = config.service;
  const service = reportingClientFor(
    { ...config.service, maxRetries: 0, timeoutMs: Math.min(config.service.timeoutMs, DOCTOR_TIMEOUT_MS) },
    credentialsFor(credentials, io.env, secrets),
    logger,
  );
  const made: { destroy(): void }[] = [secrets];
  const keep = <T extends { destroy(): void }>(client: T): T => {
    made.push(client);
    return client;
  };
  return {
    service,
    credentialsSource:
      credentials.source === 'secretsManager'
        ? `secret ${credentials.secretId}`
        : `$${credentials.userNameVar} and $${credentials.passwordVar}`,
    s3: (): S3Client => keep(s3ClientFor({})),
    dynamodb: () => keep(new DynamoDBClient({})),
    ses: (region) => keep(new SESv2Client(region ? { region } : {})),
    smtp: () => mailerFor(config.mail.transport, secrets),
    cloudFormation: () => keep(new CloudFormationClient({})),
    sns: () => keep(new SNSClient({})),
    bucket: flags.bucket,
    table: flags.table,
    alarmTopic: flags['alarm-topic'],
    // A config with a deploy section is a deployment's: its stack's outputs name what to check.
    stackName: flags.stack ?? (config.deploy ? deployNames(config).stackName : undefined),
    // Each channel's secret from where the config says; posted to only by --send-test.
    ports: channelPortsFor(secrets, io.env),
    logger,
    close: () => {
      for (const client of made) client.destroy();
    },
  };
}
