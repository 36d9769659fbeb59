/** The archive plan step's runtime (functions/archive): the copier's ports plus the copy queue (SQS). */
import { SQSClient } from '@aws-sdk/client-sqs';
import { SqsCopyQueue } from '../../adapters/aws/sqs-copy-queue.ts';
import { ConfigError } from '../../config/load.ts';
import type { PulseConfig } from '../../config/schema.ts';
import type { FanOutPorts } from '../../jobs/archive/fan-out.ts';
import { configFromBundle } from '../bundled-config.ts';
import { archiveCopierPorts } from './archive-copy.ts';
import { type BasePorts, type Env, type LambdaContext, perContainer, withInvocation } from './base.ts';

/** The copier's ports plus the copy queue (`PULSE_COPY_QUEUE_URL`). */
export function archivePlanPorts(config: PulseConfig, env: Env): FanOutPorts & BasePorts {
  const queueUrl = env.PULSE_COPY_QUEUE_URL;
  if (!queueUrl) throw new ConfigError('PULSE_COPY_QUEUE_URL: not set');
  const queue = perContainer(
    config,
    env,
    'copy-queue',
    () => new SqsCopyQueue({ client: new SQSClient({}), queueUrl }),
  );
  return { ...archiveCopierPorts(config, env), queue };
}

/** The invocation's config and ports. */
export function archivePlanRuntime(env: Env, context?: LambdaContext) {
  const config = configFromBundle(env);
  return { config, ports: withInvocation(archivePlanPorts(config, env), context) };
}

export type { LambdaContext } from './base.ts';
