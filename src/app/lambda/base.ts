/**
 * What every function's runtime shares: the container's logger (Powertools, redacting), its Secrets Manager client,
 * the Reporting Service client factory (credentials read at every sign-in) and the clock. Each function's module
 * (`digest.ts`, `archive-copy.ts`, …) imports this and only the adapters its job uses, so its bundle loads only the
 * SDK clients it calls (docs/aws.md "Runtime modules").
 *
 * Ports live as long as the container (`perContainer`, per-container.ts).
 */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { type LambdaContext, logLevelFromEnv, PowertoolsLoggerAdapter } from '../../adapters/powertools-logger.ts';
import type { ReportingClient } from '../../client/index.ts';
import type { PulseConfig } from '../../config/schema.ts';
import { type Clock, systemClock } from '../../ports/clock.ts';
import { credentialsFor, reportingClientFor } from '../service-client.ts';

export type Env = Record<string, string | undefined>;
export type { LambdaContext };

/** The service name on every log line. */
export const SERVICE_NAME = 'pulse';

import { perContainer } from './per-container.ts';

export { perContainer };

export interface BasePorts {
  logger: PowertoolsLoggerAdapter;
  secrets: SecretsManagerClient;
  /** A new Reporting Service client (its session is the invocation's, or the container's: warm-client.ts). */
  newClient: () => ReportingClient;
  clock: Clock;
}

/** The container's base ports. */
export function basePorts(config: PulseConfig, env: Env): BasePorts {
  return perContainer(config, env, 'base', () => {
    const logger = new PowertoolsLoggerAdapter({ service: SERVICE_NAME, level: logLevelFromEnv(env) });
    const secrets = new SecretsManagerClient({});
    const provider = credentialsFor(config.service.credentials, env, secrets);
    return {
      logger,
      secrets,
      newClient: () => reportingClientFor(config.service, provider, logger),
      clock: systemClock,
    };
  });
}

/** Puts the invocation's request id and cold start on the logger's lines (none when invoked without a context). */
export function withInvocation<T extends BasePorts>(ports: T, context: LambdaContext | undefined): T {
  if (context) ports.logger.addContext(context);
  return ports;
}
