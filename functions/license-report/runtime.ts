/** The license report's runtime (functions/license-report): the same ports as the digest's (service, mail, ledger, archive). */
import { configFromBundle } from '../../src/app/bundled-config.ts';
import { type Env, type LambdaContext, withInvocation } from '../../src/app/lambda/base.ts';
import { lambdaJobPorts } from '../../src/app/lambda/job-ports.ts';

/** The invocation's config and ports. */
export function licenseReportRuntime(env: Env, context?: LambdaContext) {
  const config = configFromBundle(env);
  return { config, ports: withInvocation(lambdaJobPorts(config, env), context) };
}

export type { LambdaContext } from '../../src/app/lambda/base.ts';
