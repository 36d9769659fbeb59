/**
 * A Lambda's first step: the stack creates the Reporting Service secret with a placeholder user name until an
 * operator sets the real credentials (docs/operations.md). A run that finds the placeholder stops here, before any call
 * to the service: one log line naming the secret and how to set it, and the job's `Pulse/JobFailed` metric (and,
 * for a job with a ledger, `NewFailures`: src/app/new-failures.ts) — not a
 * failed sign-in per digest or product every hour.
 */
import { PlaceholderCredentialsError } from '../adapters/aws/secrets.ts';
import type { ReportingClient } from '../client/index.ts';
import type { JobResult } from '../core/job-result.ts';
import type { Clock } from '../ports/clock.ts';
import type { Ledger } from '../ports/ledger.ts';
import type { Logger } from '../ports/logger.ts';
import { jobMetricLine } from './job-metric.ts';
import { countNewFailures } from './new-failures.ts';

/**
 * Reads the client's credentials once. Undefined when they are not the placeholder (any other problem reading them
 * is left to the job, which meets it again at sign-in and reports it its own way); otherwise the failed result of
 * `job`, already logged and its metric line written.
 */
export async function refusePlaceholder(
  job: string,
  ports: { client: ReportingClient; logger: Logger; ledger?: Ledger; clock?: Clock },
  write: (line: string) => unknown = (line) => process.stdout.write(line),
): Promise<JobResult | undefined> {
  const { credentials } = ports.client.options;
  if (typeof credentials !== 'function') return undefined;
  try {
    await credentials();
    return undefined;
  } catch (e) {
    if (!(e instanceof PlaceholderCredentialsError)) return undefined;
    ports.logger.error(e.message, { job });
    const result: JobResult = { job, ok: false, counts: {}, outputs: [], errors: [e.message] };
    // An hourly mailing job (it has a ledger) counts the refusal once as a new failure, like any other.
    const { ledger, clock } = ports;
    write(
      jobMetricLine(result, ledger && clock ? { newFailures: await countNewFailures(result, { ledger, clock }) } : {}),
    );
    return result;
  }
}
