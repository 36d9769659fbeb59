/** The plan step's runtime (functions/archive-plan): the archive steps' ports plus the copy queue (SQS). */
import { SQSClient } from '@aws-sdk/client-sqs';
import { SqsCopyQueue } from '../../src/adapters/aws/sqs-copy-queue.ts';
import { configFromBundle } from '../../src/app/bundled-config.ts';
import { archiveStepPorts } from '../../src/app/lambda/archive-steps.ts';
import {
  type BasePorts,
  type Env,
  type LambdaContext,
  perContainer,
  withInvocation,
} from '../../src/app/lambda/base.ts';
import type { PlanStepPorts } from '../../src/archive/plan-step.ts';
import { ConfigError } from '../../src/config/load.ts';
import type { PulseConfig } from '../../src/config/schema.ts';

/** The archive steps' ports plus the copy queue (`PULSE_COPY_QUEUE_URL`). */
export function archivePlanPorts(config: PulseConfig, env: Env): PlanStepPorts & BasePorts {
  const queueUrl = env.PULSE_COPY_QUEUE_URL;
  if (!queueUrl) throw new ConfigError('PULSE_COPY_QUEUE_URL: not set');
  const queue = perContainer(
    config,
    env,
    'copy-queue',
    () => new SqsCopyQueue({ client: new SQSClient({}), queueUrl }),
  );
  return { ...archiveStepPorts(config, env), queue };
}

/** The invocation's config and ports. */
export function archivePlanRuntime(env: Env, context?: LambdaContext) {
  const config = configFromBundle(env);
  return { config, ports: withInvocation(archivePlanPorts(config, env), context) };
}

export type { LambdaContext } from '../../src/app/lambda/base.ts';
