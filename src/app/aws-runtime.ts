/** The ports of the Lambdas (config: bundled-config.ts): AWS adapters, credentials from Secrets Manager. */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDbArchiveRuns } from '../adapters/aws/dynamodb-archive-runs.ts';
import { DynamoDbLedger, dynamoDocumentClientFor } from '../adapters/aws/dynamodb-ledger.ts';
import { S3ArchiveStore, s3ClientFor } from '../adapters/aws/s3-archive-store.ts';
import { SqsCopyQueue } from '../adapters/aws/sqs-copy-queue.ts';
import { ConsoleLogger, parseLogLevel } from '../adapters/console-logger.ts';
import { ConfigError } from '../config/load.ts';
import type { ArchiveConfig, PulseConfig } from '../config/schema.ts';
import type { CopierPorts, FanOutPorts } from '../jobs/archive/fan-out.ts';
import type { DigestPorts } from '../jobs/digest/run-digest.ts';
import { systemClock } from '../ports/clock.ts';
import { mailerFor } from './mailer.ts';
import { credentialsFor, reportingClientFor } from './service-client.ts';
import { containerSession } from './warm-client.ts';

type Env = Record<string, string | undefined>;

/** What every Lambda needs: a logger, the service client (credentials from Secrets Manager) and the clock. */
function basePorts(config: PulseConfig, env: Env) {
  const logger = new ConsoleLogger({ service: 'pulse', level: parseLogLevel(env.LOG_LEVEL) ?? 'info' });
  const secrets = new SecretsManagerClient({});
  const provider = credentialsFor(config.service.credentials, env, secrets);
  const newClient = () => reportingClientFor(config.service, provider, logger);
  return { logger, secrets, newClient, clock: systemClock };
}

function archiveStoreFor(archive: ArchiveConfig): S3ArchiveStore {
  return new S3ArchiveStore({
    client: s3ClientFor({}),
    bucket: archive.bucket,
    ...(archive.publicBaseUrl ? { publicBaseUrl: archive.publicBaseUrl } : {}),
  });
}

function stateTableOf(config: PulseConfig): string {
  if (!config.state) throw new ConfigError('state.tableName: required in AWS (or PULSE_STATE_TABLE)');
  return config.state.tableName;
}

/**
 * The archive's copier: the archive, the service and the run records. The client and its session are the container's
 * (warm-client.ts): created by the first invocation, its session kept for the next batches.
 */
export function archiveCopierPorts(config: PulseConfig, env: Env): CopierPorts {
  if (!config.archive) throw new ConfigError('archive: required by the archive functions');
  const { logger, newClient, clock } = basePorts(config, env);
  const warm = containerSession(JSON.stringify(config.service), newClient, logger);
  return {
    client: warm.client,
    session: (fn) => warm.use(fn),
    archive: archiveStoreFor(config.archive),
    clock,
    logger,
    runs: new DynamoDbArchiveRuns({ client: dynamoDocumentClientFor({}), tableName: stateTableOf(config) }),
  };
}

/** The archive's plan step: the copier's ports plus the copy queue (`PULSE_COPY_QUEUE_URL`). */
export function archivePlanPorts(config: PulseConfig, env: Env): FanOutPorts {
  if (!env.PULSE_COPY_QUEUE_URL) throw new ConfigError('PULSE_COPY_QUEUE_URL: not set');
  const queue = new SqsCopyQueue({ client: new SQSClient({}), queueUrl: env.PULSE_COPY_QUEUE_URL });
  return { ...archiveCopierPorts(config, env), queue };
}

export function awsPorts(config: PulseConfig, env: Env): DigestPorts {
  const { logger, secrets, newClient, clock } = basePorts(config, env);
  return {
    client: newClient(),
    mailer: mailerFor(config.mail.transport, secrets),
    ledger: new DynamoDbLedger({ client: dynamoDocumentClientFor({}), tableName: stateTableOf(config) }),
    archive: config.archive ? archiveStoreFor(config.archive) : undefined,
    clock,
    logger,
  };
}
