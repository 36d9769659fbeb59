/**
 * The usage alerts' runtime (functions/usage-alerts): the service, mail, the ledger, the suppression list, the
 * channels, the series states (DynamoDB) and the archive bucket (S3), where each run with changes keeps their
 * evidence before telling them (src/usage-alerts/evidence.ts).
 */

import * as z from 'zod';
import { configFromBundle } from '../../src/app/bundled-config.ts';
import { channelPortsFor } from '../../src/app/channels.ts';
import {
  type BasePorts,
  basePorts,
  type Env,
  type LambdaContext,
  perContainer,
  withInvocation,
} from '../../src/app/lambda/base.ts';
import { archiveStoreFor } from '../../src/app/lambda/s3-archive.ts';
import { ledgerFor, suppressionsFor, usageAlertStatesFor } from '../../src/app/lambda/state-table.ts';
import { mailerFor } from '../../src/app/mailer.ts';
import type { PulseConfig } from '../../src/config/schema.ts';
import type { JobPorts } from '../../src/ports/job-ports.ts';
import type { UnknownUsageAlerts, UsageAlertStates } from '../../src/ports/usage-alert-states.ts';
import type { ReportDigest } from '../../src/usage-alerts/report-links.ts';

export type UsageAlertLambdaPorts = JobPorts &
  BasePorts & {
    usageAlertStates: UsageAlertStates & UnknownUsageAlerts;
  };

export function usageAlertPorts(config: PulseConfig, env: Env): UsageAlertLambdaPorts {
  const kept = perContainer(config, env, 'usage-alerts', () => {
    const base = basePorts(config, env);
    return {
      ...base,
      mailer: mailerFor(config.mail.transport, base.secrets),
      suppressions: suppressionsFor(config, env),
      channels: channelPortsFor(base.secrets, env),
      usageAlertStates: usageAlertStatesFor(config, env),
      // The stack always gives the bucket (PULSE_ARCHIVE_BUCKET); without one the run tells nothing.
      archive: config.archive ? archiveStoreFor(config.archive) : undefined,
    };
  });
  // Per invocation: the run signs in and out, and its claims are its own (state-table.ts).
  return { ...kept, client: kept.newClient(), ledger: ledgerFor(config, env) };
}

/**
 * Which digest's report covers which product (`PULSE_REPORT_DIGESTS`, JSON `[{ id, productIds }]`), set by the stack
 * when the archive has a public base URL: an alert links to its product's section there. The function's config
 * carries no `digests` section (their recipients are another job's business), so the stack names only these.
 */
const ReportDigests = z.array(z.strictObject({ id: z.string().min(1), productIds: z.array(z.string().min(1)) }));

export function reportDigestsOf(env: Env): ReportDigest[] | undefined {
  const raw = env.PULSE_REPORT_DIGESTS;
  if (raw === undefined || raw === '') return undefined;
  const parsed = ReportDigests.safeParse(JSON.parse(raw));
  if (!parsed.success) throw new Error(`PULSE_REPORT_DIGESTS: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/** The invocation's config and ports, and the digests whose reports an alert may link to. */
export function usageAlertsRuntime(env: Env, context?: LambdaContext) {
  const config = configFromBundle(env);
  const reportDigests = reportDigestsOf(env);
  return { config, ports: withInvocation(usageAlertPorts(config, env), context), reportDigests };
}

export type { LambdaContext } from '../../src/app/lambda/base.ts';
