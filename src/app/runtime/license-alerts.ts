/**
 * The license alerts' runtime (functions/license-alerts): the service, mail, the ledger and the suppression list; no
 * archive (no S3).
 */
import type { PulseConfig } from '../../config/schema.ts';
import type { LicenseAlertPorts } from '../../jobs/licenses/run-license-alerts.ts';
import { configFromBundle } from '../bundled-config.ts';
import { mailerFor } from '../mailer.ts';
import { type BasePorts, basePorts, type Env, type LambdaContext, perContainer, withInvocation } from './base.ts';
import { ledgerFor, suppressionsFor } from './state-table.ts';

export function licenseAlertPorts(config: PulseConfig, env: Env): LicenseAlertPorts & BasePorts {
  const kept = perContainer(config, env, 'license-alerts', () => {
    const base = basePorts(config, env);
    return {
      ...base,
      mailer: mailerFor(config.mail.transport, base.secrets),
      suppressions: suppressionsFor(config, env),
    };
  });
  return { ...kept, client: kept.newClient(), ledger: ledgerFor(config, env) };
}

/** The invocation's config and ports. */
export function licenseAlertsRuntime(env: Env, context?: LambdaContext) {
  const config = configFromBundle(env);
  return { config, ports: withInvocation(licenseAlertPorts(config, env), context) };
}

export type { LambdaContext } from './base.ts';
