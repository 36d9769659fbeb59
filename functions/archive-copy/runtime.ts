/**
 * The copy step's runtime (functions/archive-copy): the archive steps' ports (src/app/lambda/archive-steps.ts), the
 * session kept by the container. No mail, no queue.
 */
import { configFromBundle } from '../../src/app/bundled-config.ts';
import { archiveStepPorts } from '../../src/app/lambda/archive-steps.ts';
import { type Env, type LambdaContext, withInvocation } from '../../src/app/lambda/base.ts';

/** The invocation's config and ports. */
export function archiveCopyRuntime(env: Env, context?: LambdaContext) {
  const config = configFromBundle(env);
  return { config, ports: withInvocation(archiveStepPorts(config, env), context) };
}

export type { LambdaContext } from '../../src/app/lambda/base.ts';
