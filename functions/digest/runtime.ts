/**
 * The digest's runtime (functions/digest): the service, mail (SES or SMTP), the ledger and the suppression list
 * (DynamoDB), the archive (S3).
 */

import { configFromBundle } from '../../src/app/bundled-config.ts';
import {
  type BasePorts,
  basePorts,
  type Env,
  type LambdaContext,
  perContainer,
  withInvocation,
} from '../../src/app/lambda/base.ts';
import { archiveStoreFor } from '../../src/app/lambda/s3-archive.ts';
import { ledgerFor, suppressionsFor } from '../../src/app/lambda/state-table.ts';
import { mailerFor } from '../../src/app/mailer.ts';
import type { PulseConfig } from '../../src/config/schema.ts';
import type { DigestPorts } from '../../src/digest/run-digest.ts';

export type LambdaDigestPorts = DigestPorts & BasePorts;

/**
 * The digest's ports (also the license report's, whose job takes the same): the container's, with a new service
 * client (the job signs in and out) and a new ledger (its claims are the run's) per invocation.
 */
export function digestPorts(config: PulseConfig, env: Env): LambdaDigestPorts {
  const kept = perContainer(config, env, 'digest', () => {
    const base = basePorts(config, env);
    return {
      ...base,
      mailer: mailerFor(config.mail.transport, base.secrets),
      archive: config.archive ? archiveStoreFor(config.archive) : undefined,
      suppressions: suppressionsFor(config, env),
    };
  });
  return { ...kept, client: kept.newClient(), ledger: ledgerFor(config, env) };
}

/** The invocation's config and ports. */
export function digestRuntime(env: Env, context?: LambdaContext) {
  const config = configFromBundle(env);
  return { config, ports: withInvocation(digestPorts(config, env), context) };
}

export type { LambdaContext } from '../../src/app/lambda/base.ts';
