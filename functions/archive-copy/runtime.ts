/**
 * The copier's runtime (functions/archive-copy): the archive (S3), the run records (DynamoDB) and the service, whose
 * client and session are the container's (warm-client.ts). No mail, no queue.
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
import { archiveRunsFor } from '../../src/app/lambda/state-table.ts';
import { containerSession } from '../../src/app/warm-client.ts';
import type { CopyStepPorts } from '../../src/archive/copy-step.ts';
import { ConfigError } from '../../src/config/load.ts';
import type { PulseConfig } from '../../src/config/schema.ts';

export type LambdaCopierPorts = CopyStepPorts & BasePorts;

export function archiveCopierPorts(config: PulseConfig, env: Env): LambdaCopierPorts {
  const archive = config.archive;
  if (!archive) throw new ConfigError('archive: required by the archive functions');
  const kept = perContainer(config, env, 'archive-copy', () => ({
    ...basePorts(config, env),
    archive: archiveStoreFor(archive),
    runs: archiveRunsFor(config, env),
  }));
  // Already the container's (and the one place that swaps it when a process talks to another service: tests).
  const warm = containerSession(JSON.stringify(config.service), kept.newClient, kept.logger);
  return { ...kept, client: warm.client, session: (fn) => warm.use(fn) };
}

/** The invocation's config and ports. */
export function archiveCopyRuntime(env: Env, context?: LambdaContext) {
  const config = configFromBundle(env);
  return { config, ports: withInvocation(archiveCopierPorts(config, env), context) };
}

export type { LambdaContext } from '../../src/app/lambda/base.ts';
