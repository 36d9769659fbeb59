/** The license sync's runtime (functions/license-sync): the service and the archive bucket (S3); no mail, no table. */

import type { ReportingClient } from '../../client/index.ts';
import type { PulseConfig } from '../../config/schema.ts';
import type { UploadPorts } from '../../jobs/licenses/sync-upload.ts';
import { configFromBundle } from '../bundled-config.ts';
import { type BasePorts, basePorts, type Env, type LambdaContext, perContainer, withInvocation } from './base.ts';
import { archiveStoreFor } from './s3-archive.ts';

/** The archive is the bucket the uploads land in; the stack always gives it (the handler checks nothing more). */
export function licenseSyncPorts(
  config: PulseConfig,
  env: Env,
): Omit<UploadPorts, 'archive'> & BasePorts & { client: ReportingClient; archive: UploadPorts['archive'] | undefined } {
  const kept = perContainer(config, env, 'license-sync', () => ({
    ...basePorts(config, env),
    archive: config.archive ? archiveStoreFor(config.archive) : undefined,
  }));
  return { ...kept, client: kept.newClient() };
}

/** The invocation's config and ports. */
export function licenseSyncRuntime(env: Env, context?: LambdaContext) {
  const config = configFromBundle(env);
  return { config, ports: withInvocation(licenseSyncPorts(config, env), context) };
}

export type { LambdaContext } from './base.ts';
