/**
 * JSON secrets from Secrets Manager, read on every call so a rotated secret is picked up without a restart.
 * Errors name the secret id and the missing fields, never the value (not even a JSON parser's excerpt of it).
 */
import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

export class SecretFormatError extends Error {
  override name = 'SecretFormatError';
}

/** The secret's JSON object (SecretString). */
export async function readSecretJson(client: SecretsManagerClient, secretId: string): Promise<Record<string, unknown>> {
  const res = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
  if (res.SecretString === undefined) throw new SecretFormatError(`secret ${secretId} has no SecretString`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(res.SecretString);
  } catch {
    // No cause: V8's SyntaxError message quotes the start of the text, i.e. of the secret.
    throw new SecretFormatError(`secret ${secretId} is not valid JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new SecretFormatError(`secret ${secretId} is not a JSON object`);
  }
  return parsed as Record<string, unknown>;
}

/** The named non-empty string fields of a JSON secret, e.g. `['user', 'pass']` for SMTP credentials. */
export async function readSecretFields<F extends string>(
  client: SecretsManagerClient,
  secretId: string,
  fields: readonly F[],
): Promise<Record<F, string>> {
  const json = await readSecretJson(client, secretId);
  const missing = fields.filter((f) => typeof json[f] !== 'string' || json[f] === '');
  if (missing.length > 0) {
    throw new SecretFormatError(`secret ${secretId} lacks non-empty string field(s): ${missing.join(', ')}`);
  }
  return Object.fromEntries(fields.map((f) => [f, json[f]])) as Record<F, string>;
}

/**
 * The user name the stack's secret is created with (lib/stacks/pulse-stack.ts) until an operator sets the real
 * credentials: signing in with it can only fail, and every hour, so it is refused before the service is called.
 */
export const PLACEHOLDER_USER_NAME = 'pulse-placeholder';

/** The secret still holds the stack's placeholder credentials; the message says how to set them. */
export class PlaceholderCredentialsError extends Error {
  override name = 'PlaceholderCredentialsError';
  readonly secretId: string;

  constructor(secretId: string) {
    super(
      `the Reporting Service credentials in secret ${secretId} are still the placeholder: set them with ` +
        `\`aws secretsmanager put-secret-value --secret-id ${secretId} --secret-string file://credentials.json\` ` +
        '(JSON {"userName", "password"}; docs/operations.md)',
    );
    this.secretId = secretId;
  }
}

/**
 * Reporting Service credentials (`{"userName", "password"}`), fetched at every call: pass it to the client. The
 * stack's placeholder is refused with PlaceholderCredentialsError, so nothing signs in with it.
 */
export function secretJsonProvider(
  client: SecretsManagerClient,
  secretId: string,
): () => Promise<{ userName: string; password: string }> {
  return async () => {
    const credentials = await readSecretFields(client, secretId, ['userName', 'password'] as const);
    if (credentials.userName === PLACEHOLDER_USER_NAME) throw new PlaceholderCredentialsError(secretId);
    return credentials;
  };
}
