/**
 * The archive-verify runtime (functions/archive-verify): the archive bucket, read only, and a logger. No service
 * client, no credentials, no state table: the chain is checked from the bucket alone, so this module imports neither
 * base.ts (Secrets Manager) nor any client but S3's. The ports are kept per container like every function's.
 */
import { type LambdaContext, logLevelFromEnv, PowertoolsLoggerAdapter } from '../../src/adapters/powertools-logger.ts';
import { configFromBundle } from '../../src/app/bundled-config.ts';
import { perContainer } from '../../src/app/lambda/per-container.ts';
import { archiveStoreFor } from '../../src/app/lambda/s3-archive.ts';
import { ConfigError } from '../../src/config/load.ts';
import type { PulseConfig } from '../../src/config/schema.ts';

type Env = Record<string, string | undefined>;

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
  const ports = perContainer(config, env, 'archive-verify', () => portsFor(config, env));
  if (context) ports.logger.addContext(context);
  return { config, ports };
}

export type { LambdaContext } from '../../src/adapters/powertools-logger.ts';
