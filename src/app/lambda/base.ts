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
import type { ChannelPorts } from '../../ports/channels.ts';
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

/** A channel post or wait is not begun within this much of the invocation's end: the run still settles its claims. */
export const CHANNEL_DEADLINE_MARGIN_MS = 30_000;

/**
 * Puts the invocation's request id and cold start on the logger's lines (none when invoked without a context), and
 * its end, less a margin, as the deadline of its channel posts (a 429's Retry-After is never waited past it).
 */
export function withInvocation<T extends BasePorts & { channels?: ChannelPorts }>(
  ports: T,
  context: LambdaContext | undefined,
): T {
  if (!context) return ports;
  ports.logger.addContext(context);
  const remaining = context.getRemainingTimeInMillis?.();
  if (ports.channels === undefined || remaining === undefined) return ports;
  const deadline = Date.now() + remaining - CHANNEL_DEADLINE_MARGIN_MS;
  return { ...ports, channels: { ...ports.channels, deadline } };
}
