/**
 * The mail-events runtime (functions/mail-events): the ledger and the suppression list (DynamoDB) and the mailer for
 * the owners' notices (SES or SMTP, its credentials secret read only for SMTP). No Reporting Service, no archive:
 * this module imports neither base.ts (the service client) nor S3. Kept per container like every function's; the
 * ledger is new per invocation (its claim token names one run's claims: the notices').
 */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { type LambdaContext, logLevelFromEnv, PowertoolsLoggerAdapter } from '../../src/adapters/powertools-logger.ts';
import { configFromBundle } from '../../src/app/bundled-config.ts';
import { channelPortsFor } from '../../src/app/channels.ts';
import { perContainer } from '../../src/app/lambda/per-container.ts';
import { ledgerFor, suppressionsFor } from '../../src/app/lambda/state-table.ts';
import { mailerFor } from '../../src/app/mailer.ts';
import type { PulseConfig } from '../../src/config/schema.ts';
import type { MailEventPorts } from '../../src/mail-events/run-mail-events.ts';
import { systemClock } from '../../src/ports/clock.ts';

type Env = Record<string, string | undefined>;

export function mailEventPorts(config: PulseConfig, env: Env): MailEventPorts & { logger: PowertoolsLoggerAdapter } {
  const kept = perContainer(config, env, 'mail-events', () => {
    const secrets = new SecretsManagerClient({});
    return {
      logger: new PowertoolsLoggerAdapter({ service: 'pulse', level: logLevelFromEnv(env) }),
      mailer: mailerFor(config.mail.transport, secrets),
      suppressions: suppressionsFor(config, env),
      clock: systemClock,
      channels: channelPortsFor(secrets, env),
    };
  });
  return { ...kept, ledger: ledgerFor(config, env) };
}

/** The invocation's config and ports, the Lambda context on the logger. */
export function mailEventsRuntime(env: Env, context?: LambdaContext) {
  const config = configFromBundle(env);
  const ports = mailEventPorts(config, env);
  if (context) ports.logger.addContext(context);
  return { config, ports };
}

export type { LambdaContext } from '../../src/adapters/powertools-logger.ts';
