/** The mailer `mail.transport` names: SES v2, or SMTP with its credentials from a Secrets Manager secret. */
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { readSecretFields } from '../adapters/aws/secrets.ts';
import { type NodemailerMailer, sesMailer, smtpMailer } from '../adapters/mail/nodemailer-mailer.ts';
import type { PulseConfig } from '../config/schema.ts';

export function mailerFor(
  transport: PulseConfig['mail']['transport'],
  secrets: SecretsManagerClient,
): NodemailerMailer {
  if (transport.kind === 'ses') {
    return sesMailer({
      ...(transport.region ? { region: transport.region } : {}),
      ...(transport.configurationSet ? { configurationSet: transport.configurationSet } : {}),
    });
  }
  const secretId = transport.credentialsSecretId;
  return smtpMailer({
    host: transport.host,
    port: transport.port,
    secure: transport.secure,
    // Read before every message, so a rotated secret is picked up.
    ...(secretId ? { auth: () => readSecretFields(secrets, secretId, ['user', 'pass'] as const) } : {}),
  });
}
