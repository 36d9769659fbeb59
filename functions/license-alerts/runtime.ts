/**
 * The license alerts' runtime (functions/license-alerts): the service, mail, the ledger and the suppression list; no
 * archive (no S3).
 */

import { configFromBundle } from '../../src/app/bundled-config.ts';
import { channelPortsFor } from '../../src/app/channels.ts';
import {
  type BasePorts,
  basePorts,
  type Env,
  type LambdaContext,
  perContainer,
  withInvocation,
} from '../../src/app/lambda/base.ts';
import { ledgerFor, suppressionsFor } from '../../src/app/lambda/state-table.ts';
import { mailerFor } from '../../src/app/mailer.ts';
import type { PulseConfig } from '../../src/config/schema.ts';
import type { LicenseAlertPorts } from '../../src/licenses/alerts/run-license-alerts.ts';

export function licenseAlertPorts(config: PulseConfig, env: Env): LicenseAlertPorts & BasePorts {
  const kept = perContainer(config, env, 'license-alerts', () => {
    const base = basePorts(config, env);
    return {
      ...base,
      mailer: mailerFor(config.mail.transport, base.secrets),
      suppressions: suppressionsFor(config, env),
      channels: channelPortsFor(base.secrets, env),
    };
  });
  return { ...kept, client: kept.newClient(), ledger: ledgerFor(config, env) };
}

/** The invocation's config and ports. */
export function licenseAlertsRuntime(env: Env, context?: LambdaContext) {
  const config = configFromBundle(env);
  return { config, ports: withInvocation(licenseAlertPorts(config, env), context) };
}

export type { LambdaContext } from '../../src/app/lambda/base.ts';
