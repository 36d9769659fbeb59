/** The license sync's runtime (functions/license-sync): the service and the archive bucket (S3); no mail, no table. */

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
import type { ReportingClient } from '../../src/client/index.ts';
import type { PulseConfig } from '../../src/config/schema.ts';
import type { UploadPorts } from '../../src/licenses/sync/sync-upload.ts';

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

export type { LambdaContext } from '../../src/app/lambda/base.ts';
