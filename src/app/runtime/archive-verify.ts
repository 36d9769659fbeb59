/**
 * The archive-verify runtime (functions/archive-verify): the archive bucket, read only, and a logger. No service
 * client, no credentials, no state table: the chain is checked from the bucket alone, so this module imports neither
 * base.ts (Secrets Manager) nor any client but S3's. The ports are kept per container, as base.ts keeps the others.
 */
import { type LambdaContext, logLevelFromEnv, PowertoolsLoggerAdapter } from '../../adapters/powertools-logger.ts';
import { ConfigError } from '../../config/load.ts';
import type { PulseConfig } from '../../config/schema.ts';
import { configFromBundle } from '../bundled-config.ts';
import { archiveStoreFor } from './s3-archive.ts';

type Env = Record<string, string | undefined>;

let kept: { config: PulseConfig; ports: ReturnType<typeof portsFor> } | undefined;

function portsFor(config: PulseConfig, env: Env) {
  if (!config.archive) throw new ConfigError('archive: required by the archive-verify function');
  return {
    archive: archiveStoreFor(config.archive),
    logger: new PowertoolsLoggerAdapter({ service: 'pulse', level: logLevelFromEnv(env) }),
    /** Where the manifests are (`<prefix>/manifests/`). */
    prefix: config.archive.prefix,
  };
}

/** The invocation's config and ports, the Lambda context on the logger. */
export function archiveVerifyRuntime(env: Env, context?: LambdaContext) {
  const config = configFromBundle(env);
  if (kept?.config !== config) kept = { config, ports: portsFor(config, env) };
  if (context) kept.ports.logger.addContext(context);
  return kept;
}

export type { LambdaContext } from '../../adapters/powertools-logger.ts';
