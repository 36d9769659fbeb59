/** The Reporting Service client as the config describes it, with credentials from where the config says. */
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { secretJsonProvider } from '../adapters/aws/secrets.ts';
import { type CredentialsProvider, ReportingClient } from '../client/index.ts';
import { ConfigError } from '../config/load.ts';
import type { PulseConfig } from '../config/schema.ts';
import type { Logger } from '../ports/logger.ts';

export function reportingClientFor(
  service: PulseConfig['service'],
  credentials: CredentialsProvider,
  logger: Logger,
): ReportingClient {
  return new ReportingClient({
    baseUrl: service.baseUrl,
    origin: service.origin,
    headerPrefix: service.headerPrefix,
    timeoutMs: service.timeoutMs,
    maxRetries: service.maxRetries,
    credentials,
    logger,
  });
}

/** `credentials.source: "env"`: read at every sign-in; a missing variable is named, its value never shown. */
export function envCredentials(
  source: { userNameVar: string; passwordVar: string },
  env: Record<string, string | undefined>,
): CredentialsProvider {
  return () => {
    const userName = env[source.userNameVar];
    const password = env[source.passwordVar];
    if (!userName || !password)
      throw new ConfigError(`service.credentials: set ${!userName ? source.userNameVar : source.passwordVar}`);
    return { userName, password };
  };
}

/**
 * The credentials `service.credentials` names: a Secrets Manager secret (read at every sign-in; the stack's
 * placeholder refused) or environment variables.
 */
export function credentialsFor(
  credentials: PulseConfig['service']['credentials'],
  env: Record<string, string | undefined>,
  secrets: SecretsManagerClient,
): CredentialsProvider {
  return credentials.source === 'secretsManager'
    ? secretJsonProvider(secrets, credentials.secretId)
    : envCredentials(credentials, env);
}
