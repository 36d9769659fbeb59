/**
 * How a command ends when something fails that is not a usage error: ONE line on stderr (what failed, what to do)
 * and an exit code (the table: exit-codes.ts); the stack trace only with `--verbose`. The code says what kind of
 * failure it is, whichever peer failed (Reporting Service, S3, DynamoDB; local or AWS), so scripts can tell "fix the
 * credentials" from "try again". FAILURES below decides it for Pulse's own errors, one row each; what is not one of
 * them is judged by what it carries (a system network code, an AWS SDK answer).
 */
import { DynamoDBServiceException } from '@aws-sdk/client-dynamodb';
import { S3ServiceException } from '@aws-sdk/client-s3';
import { FaultProfileError } from '../../emulator/faults.ts';
import { PlaceholderCredentialsError } from '../adapters/aws/secrets.ts';
import { LocalStateError } from '../adapters/local/local-state-error.ts';
import { LocalPeersMissingError } from '../app/load-local-runtime.ts';
import {
  AuthenticationError,
  ClientConfigError,
  CsrfError,
  NetworkError,
  OriginRejectedError,
  RateLimitedError,
  ReportingServiceError,
  SessionLimitError,
  TimeoutError,
} from '../client/errors.ts';
import { ConfigError } from '../config/load.ts';
import { EXIT, type ExitCode } from './exit-codes.ts';
import { type CliIo, UsageError } from './io.ts';

export interface FailureContext {
  /** The work directory of a `--local` run: its peers' state is there. */
  localWorkDir?: string | undefined;
  /** The command has no `--local` (e.g. `pulse doctor`, which checks the real resources): no such hint. */
  noLocalMode?: boolean;
}

export interface Failure {
  code: number;
  /** What failed and what to do, one line. */
  line: string;
}

/** Exit code of a failure (exit-codes.ts). */
export const exitCodeFor = (e: unknown, ctx: FailureContext = {}): number => describeFailure(e, ctx).code;

type ErrorClass = abstract new (...args: never[]) => Error;

const AT = 'the Reporting Service';
/**
 * Pulse's own errors: their exit code and what to add to their message (first match wins, so a subclass stands
 * before its base class). A row without `whatToDo` prints the message alone: it already says what to do.
 */
const FAILURES: { error: ErrorClass; code: ExitCode; whatToDo?: string; prefix?: string }[] = [
  { error: UsageError, code: EXIT.usage },
  { error: ConfigError, code: EXIT.usage },
  { error: ClientConfigError, code: EXIT.usage },
  { error: FaultProfileError, code: EXIT.usage, prefix: '--faults' },
  // --local in a production install: nothing was started, the message says what to install.
  { error: LocalPeersMissingError, code: EXIT.usage },
  { error: AuthenticationError, code: EXIT.auth, whatToDo: 'check the user name and password (service.credentials)' },
  { error: OriginRejectedError, code: EXIT.auth, whatToDo: `service.origin must be the dashboard origin ${AT} allows` },
  { error: CsrfError, code: EXIT.auth, whatToDo: `${AT} refused the session; run again` },
  { error: SessionLimitError, code: EXIT.auth, whatToDo: 'the user holds too many sessions; wait until they expire' },
  { error: NetworkError, code: EXIT.network, whatToDo: 'check service.baseUrl and the network, then run again' },
  { error: TimeoutError, code: EXIT.network, whatToDo: 'check service.baseUrl and the network, then run again' },
  { error: RateLimitedError, code: EXIT.service, whatToDo: `${AT} is busy; run again later` },
  { error: ReportingServiceError, code: EXIT.service, whatToDo: `${AT} failed; run again later` },
  // The stack's secret before an operator set it: the message names the secret and the command that sets it.
  { error: PlaceholderCredentialsError, code: EXIT.auth },
  // A work directory in use, or local state that cannot be read: the message names the folder and what to do.
  { error: LocalStateError, code: EXIT.failure },
];

export function describeFailure(e: unknown, ctx: FailureContext = {}): Failure {
  const message = oneLine(e instanceof Error ? e.message : String(e));
  const row = FAILURES.find((f) => e instanceof f.error);
  if (row) {
    const line = row.prefix ? `${row.prefix}: ${message}` : row.whatToDo ? `${message}: ${row.whatToDo}` : message;
    return { code: row.code, line };
  }
  // Before the AWS answers: the SDK's network errors carry `$metadata` too, but no answer.
  const network = networkCode(e);
  if (network) {
    const what = message.includes(network) ? message : `${message} (${network})`;
    return { code: EXIT.network, line: `${what}: check the network and run again` };
  }
  const aws = awsFailure(e, message, ctx);
  if (aws) return aws;
  const name = e instanceof Error ? e.name : 'Error';
  return { code: EXIT.failure, line: `${name}: ${message}: run again with --verbose for the details` };
}

/** S3 and DynamoDB (and other AWS SDK) errors, from AWS or from the local peers in the work directory. */
function awsFailure(e: unknown, message: string, ctx: FailureContext): Failure | undefined {
  const err = e as { name?: string; $metadata?: { httpStatusCode?: number } };
  // The SDK's own words ("Region is missing") do not say how to give one.
  if (e instanceof Error && /^Region is missing/.test(e.message))
    return { code: EXIT.usage, line: `${message}: set AWS_REGION (or AWS_PROFILE with a region) and run again` };
  if (err?.name === 'CredentialsProviderError')
    return {
      code: EXIT.auth,
      line: `${message}: configure AWS credentials${ctx.noLocalMode ? '' : ' (or run with --local)'}`,
    };
  if (!(e instanceof Error) || err.$metadata === undefined) return undefined;
  const status = err.$metadata.httpStatusCode;
  const peer = e instanceof S3ServiceException ? 'S3' : e instanceof DynamoDBServiceException ? 'DynamoDB' : 'AWS';
  const folder = peer === 'S3' ? 's3' : peer === 'DynamoDB' ? 'dynamodb' : undefined;
  const answered = `answered ${status ?? 'without a status'} (${e.name}: ${message})`;
  if (ctx.localWorkDir !== undefined && folder !== undefined) {
    const dir = `${ctx.localWorkDir}/${folder}`;
    return {
      code: EXIT.service,
      line: `local ${peer} in ${dir} ${answered}: run again; if it persists move ${dir} aside`,
    };
  }
  if (status === 401 || status === 403 || /AccessDenied|InvalidAccessKeyId|ExpiredToken|Unrecognized/.test(e.name))
    return { code: EXIT.auth, line: `${peer} ${answered}: check the AWS credentials and permissions` };
  return { code: EXIT.service, line: `${peer} ${answered}: run again later` };
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);

function networkCode(e: unknown): string | undefined {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return code !== undefined && NETWORK_CODES.has(code) ? code : undefined;
}

const oneLine = (text: string): string => text.replace(/\s*\n\s*/g, ' ').trim();

/**
 * Writes the failure's one line (`pulse <command>: …`), with `--verbose` after the stack trace and its causes, and
 * returns the exit code. Values of secret-looking environment variables are masked in both, whatever a lower layer
 * put into a message.
 */
export function reportFailure(
  command: string,
  e: unknown,
  io: CliIo,
  opts: FailureContext & { verbose?: boolean | undefined },
): number {
  const { code, line } = describeFailure(e, opts);
  const mask = masker(io.env);
  if (opts.verbose) {
    for (let c: unknown = e, depth = 0; c !== undefined && depth < 5; c = (c as Error).cause, depth++) {
      io.stderr.write(
        `${depth > 0 ? 'caused by: ' : ''}${mask(c instanceof Error ? (c.stack ?? c.message) : String(c))}\n`,
      );
    }
  }
  io.stderr.write(`pulse ${command}: ${mask(line)}\n`);
  return code;
}

const SECRET_NAME = /PASSWORD|SECRET|TOKEN|COOKIE|SESSION|CREDENTIAL/i;

/** Masks the values of secret-looking environment variables (`***`) in text about to be printed. */
export function masker(env: CliIo['env']): (text: string) => string {
  const secrets = Object.entries(env)
    .filter(([name, value]) => SECRET_NAME.test(name) && value !== undefined && value.length >= 4)
    .map(([, value]) => value as string);
  return (text) => secrets.reduce((t, s) => t.split(s).join('***'), text);
}
