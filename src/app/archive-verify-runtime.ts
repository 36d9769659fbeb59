/**
 * The ports of the archive-verify Lambda (functions/archive-verify): the archive bucket, read only, and a logger. No
 * service client, no credentials, no state table: the chain is checked from the bucket alone.
 */
import { S3ArchiveStore, s3ClientFor } from '../adapters/aws/s3-archive-store.ts';
import { ConsoleLogger, parseLogLevel } from '../adapters/console-logger.ts';
import { ConfigError } from '../config/load.ts';
import type { PulseConfig } from '../config/schema.ts';
import type { Logger } from '../ports/logger.ts';

type Env = Record<string, string | undefined>;

export interface ArchiveVerifyPorts {
  archive: S3ArchiveStore;
  logger: Logger;
  /** The archive's prefix, where the manifests are (`<prefix>/manifests/`). */
  prefix: string;
}

export function archiveVerifyPorts(config: PulseConfig, env: Env): ArchiveVerifyPorts {
  if (!config.archive) throw new ConfigError('archive: required by the archive-verify function');
  return {
    archive: new S3ArchiveStore({ client: s3ClientFor({}), bucket: config.archive.bucket }),
    logger: new ConsoleLogger({ service: 'pulse', level: parseLogLevel(env.LOG_LEVEL) ?? 'info' }),
    prefix: config.archive.prefix,
  };
}
