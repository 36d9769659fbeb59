/**
 * The copier's runtime (functions/archive-copy): the archive (S3), the run records (DynamoDB) and the service, whose
 * client and session are the container's (warm-client.ts). No mail, no queue.
 */
import { ConfigError } from '../../config/load.ts';
import type { PulseConfig } from '../../config/schema.ts';
import type { CopierPorts } from '../../jobs/archive/fan-out.ts';
import { configFromBundle } from '../bundled-config.ts';
import { containerSession } from '../warm-client.ts';
import { type BasePorts, basePorts, type Env, type LambdaContext, perContainer, withInvocation } from './base.ts';
import { archiveStoreFor } from './s3-archive.ts';
import { archiveRunsFor } from './state-table.ts';

export type LambdaCopierPorts = CopierPorts & BasePorts;

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

export type { LambdaContext } from './base.ts';
