/**
 * The ports of a Lambda that runs a whole job over the service and mails what it makes (functions/digest,
 * functions/license-report): the container's logger, mailer, archive store and suppression list, with a new service
 * client (the job signs in and out) and a new ledger (its claims are the run's) per invocation.
 */
import type { PulseConfig } from '../../config/schema.ts';
import type { JobPorts } from '../../ports/job-ports.ts';
import { channelPortsFor } from '../channels.ts';
import { mailerFor } from '../mailer.ts';
import { type BasePorts, basePorts, type Env, perContainer } from './base.ts';
import { archiveStoreFor } from './s3-archive.ts';
import { ledgerFor, suppressionsFor } from './state-table.ts';

export type LambdaJobPorts = JobPorts & BasePorts;

export function lambdaJobPorts(config: PulseConfig, env: Env): LambdaJobPorts {
  const kept = perContainer(config, env, 'job', () => {
    const base = basePorts(config, env);
    return {
      ...base,
      mailer: mailerFor(config.mail.transport, base.secrets),
      archive: config.archive ? archiveStoreFor(config.archive) : undefined,
      suppressions: suppressionsFor(config, env),
      channels: channelPortsFor(base.secrets, env),
    };
  });
  return { ...kept, client: kept.newClient(), ledger: ledgerFor(config, env) };
}
