/** The license report's runtime (functions/license-report): the digest's ports (service, mail, ledger, archive). */
import { configFromBundle } from '../../src/app/bundled-config.ts';
import type { Env, LambdaContext } from '../../src/app/lambda/base.ts';
import { withInvocation } from '../../src/app/lambda/base.ts';
import { digestPorts } from '../digest/runtime.ts';

/** The invocation's config and ports. */
export function licenseReportRuntime(env: Env, context?: LambdaContext) {
  const config = configFromBundle(env);
  return { config, ports: withInvocation(digestPorts(config, env), context) };
}

export type { LambdaContext } from '../../src/app/lambda/base.ts';
