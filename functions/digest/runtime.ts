/**
 * The digest's runtime (functions/digest): the service, mail (SES or SMTP), the ledger and the suppression list
 * (DynamoDB), the archive (S3): src/app/lambda/job-ports.ts.
 */
import { configFromBundle } from '../../src/app/bundled-config.ts';
import { type Env, type LambdaContext, withInvocation } from '../../src/app/lambda/base.ts';
import { lambdaJobPorts } from '../../src/app/lambda/job-ports.ts';

/** The invocation's config and ports. */
export function digestRuntime(env: Env, context?: LambdaContext) {
  const config = configFromBundle(env);
  return { config, ports: withInvocation(lambdaJobPorts(config, env), context) };
}

export type { LambdaContext } from '../../src/app/lambda/base.ts';
