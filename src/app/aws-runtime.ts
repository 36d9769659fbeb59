/** The ports of a Lambda: config from the environment, AWS adapters, credentials from Secrets Manager. */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { DynamoDbLedger, dynamoDocumentClientFor } from '../adapters/aws/dynamodb-ledger.ts';
import { S3ArchiveStore, s3ClientFor } from '../adapters/aws/s3-archive-store.ts';
import { readSecretFields, secretJsonProvider } from '../adapters/aws/secrets.ts';
import { ConsoleLogger, parseLogLevel } from '../adapters/console-logger.ts';
import { sesMailer, smtpMailer } from '../adapters/mail/nodemailer-mailer.ts';
import { ConfigError, parseConfig } from '../config/load.ts';
import type { PulseConfig } from '../config/schema.ts';
import type { DigestPorts } from '../jobs/digest/run-digest.ts';
import { systemClock } from '../ports/clock.ts';
import { envCredentials, reportingClientFor } from './service-client.ts';

type Env = Record<string, string | undefined>;

/** The CDK app passes the validated config as `PULSE_CONFIG_JSON`; table and bucket names as their own variables. */
export function configFromEnv(env: Env): PulseConfig {
  if (!env.PULSE_CONFIG_JSON) throw new ConfigError('PULSE_CONFIG_JSON: not set');
  const raw = JSON.parse(env.PULSE_CONFIG_JSON) as Record<string, unknown>;
  if (env.PULSE_ARCHIVE_BUCKET) raw.archive = { ...(raw.archive as object), bucket: env.PULSE_ARCHIVE_BUCKET };
  if (env.PULSE_STATE_TABLE) raw.state = { tableName: env.PULSE_STATE_TABLE };
  return parseConfig(raw, 'PULSE_CONFIG_JSON');
}

export function awsPorts(config: PulseConfig, env: Env): DigestPorts {
  const logger = new ConsoleLogger({ service: 'pulse', level: parseLogLevel(env.LOG_LEVEL) ?? 'info' });
  const secrets = new SecretsManagerClient({});
  const { credentials } = config.service;
  const provider =
    credentials.source === 'secretsManager'
      ? secretJsonProvider(secrets, credentials.secretId)
      : envCredentials(credentials, env);
  const transport = config.mail.transport;
  const smtpSecret = transport.kind === 'smtp' ? transport.credentialsSecretId : undefined;
  const mailer =
    transport.kind === 'ses'
      ? sesMailer(transport.region ? { region: transport.region } : {})
      : smtpMailer({
          host: transport.host,
          port: transport.port,
          secure: transport.secure,
          ...(smtpSecret ? { auth: () => readSecretFields(secrets, smtpSecret, ['user', 'pass'] as const) } : {}),
        });
  if (!config.state) throw new ConfigError('state.tableName: required in AWS (or PULSE_STATE_TABLE)');
  return {
    client: reportingClientFor(config.service, provider, logger),
    mailer,
    ledger: new DynamoDbLedger({ client: dynamoDocumentClientFor({}), tableName: config.state.tableName }),
    archive: config.archive
      ? new S3ArchiveStore({
          client: s3ClientFor({}),
          bucket: config.archive.bucket,
          ...(config.archive.publicBaseUrl ? { publicBaseUrl: config.archive.publicBaseUrl } : {}),
        })
      : undefined,
    clock: systemClock,
    logger,
  };
}
