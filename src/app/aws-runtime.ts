/**
 * The CLI's ports against AWS (`pulse digest|licenses … ` without `--local`): AWS adapters, credentials from Secrets
 * Manager or the environment, JSON log lines on stderr. The Lambdas do not use this module: each function's runtime
 * is its own module under `runtime/`, loading only the SDK clients its job calls (docs/aws.md "Runtime modules").
 */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { DynamoDbLedger, dynamoDocumentClientFor } from '../adapters/aws/dynamodb-ledger.ts';
import { DynamoDbSuppressionList } from '../adapters/aws/dynamodb-suppressions.ts';
import { ConsoleLogger, parseLogLevel } from '../adapters/console-logger.ts';
import type { PulseConfig } from '../config/schema.ts';
import { systemClock } from '../ports/clock.ts';
import type { JobPorts } from '../ports/job-ports.ts';
import { channelPortsFor } from './channels.ts';
import type { Env } from './lambda/base.ts';
import { archiveStoreFor } from './lambda/s3-archive.ts';
import { stateTableOf } from './lambda/state-table.ts';
import { mailerFor } from './mailer.ts';
import { credentialsFor, reportingClientFor } from './service-client.ts';

export function awsPorts(config: PulseConfig, env: Env): JobPorts {
  const logger = new ConsoleLogger({ service: 'pulse', level: parseLogLevel(env.LOG_LEVEL) ?? 'info' });
  const secrets = new SecretsManagerClient({});
  const db = dynamoDocumentClientFor({});
  const tableName = stateTableOf(config);
  return {
    client: reportingClientFor(config.service, credentialsFor(config.service.credentials, env, secrets), logger),
    mailer: mailerFor(config.mail.transport, secrets),
    ledger: new DynamoDbLedger({ client: db, tableName }),
    suppressions: new DynamoDbSuppressionList({ client: db, tableName }),
    archive: config.archive ? archiveStoreFor(config.archive) : undefined,
    clock: systemClock,
    logger,
    channels: channelPortsFor(secrets, env),
  };
}
