import { Duration, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { PulseFunction } from './pulse-function.ts';

export interface QueueWorkerProps {
  /** The handler lives in functions/<handler>/handler.ts. */
  readonly handler: string;
  readonly environment: Record<string, string>;
  /** The function's part of the config, written into its bundle (pulse-function.ts). */
  readonly config?: object;
  readonly alarmTopic: ITopic;
  readonly timeout: Duration;
  readonly memorySize?: number;
  /** Files copied next to the bundle (e.g. compiled email templates): source path → file name in the asset. */
  readonly assets?: Record<string, string>;
  /** Messages per invocation. */
  readonly batchSize: number;
  /** Invocations at once: bounds the load (and the sessions) on the Reporting Service. */
  readonly maxConcurrency: number;
  /** Deliveries of a message before it is dead-lettered. @default 3 */
  readonly maxReceiveCount?: number;
  /**
   * The oldest task waiting longer than this raises an alarm: the workers are not keeping up (throttled, failing
   * every try, or the service refuses them). @default 6 hours
   */
  readonly maxMessageAge?: Duration;
}

/**
 * A Pulse function draining an SQS queue: encrypted, TLS-only queues; partial batch responses, so only the messages
 * the function hands back are delivered again; after the last delivery a message goes to the dead-letter queue
 * (kept 14 days), and any message there raises an alarm: a task is never dropped silently. A task waiting too long
 * in the queue raises another: the queue is not drained.
 */
export class QueueWorker extends Construct {
  public readonly fn: NodejsFunction;
  public readonly queue: Queue;
  public readonly deadLetterQueue: Queue;
  /** The text of the worker bundle's pulse.config.json, if it gets one (pulse-function.ts). */
  public readonly bundledConfig: string | undefined;

  constructor(scope: Construct, id: string, props: QueueWorkerProps) {
    super(scope, id);
    const secure = { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true };
    this.deadLetterQueue = new Queue(this, 'DeadLetters', { ...secure, retentionPeriod: Duration.days(14) });
    this.queue = new Queue(this, 'Queue', {
      ...secure,
      // AWS's advice for Lambda event sources: six times the function timeout, so a slow try is not delivered twice.
      visibilityTimeout: Duration.seconds(props.timeout.toSeconds() * 6),
      retentionPeriod: Duration.days(4),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: props.maxReceiveCount ?? 3 },
    });
    const { handler, environment, config, alarmTopic, timeout, memorySize, assets } = props;
    const worker = new PulseFunction(this, 'Worker', {
      handler,
      environment,
      ...(config !== undefined ? { config } : {}),
      ...(assets !== undefined ? { assets } : {}),
      alarmTopic,
      timeout,
      ...(memorySize !== undefined ? { memorySize } : {}),
    });
    this.fn = worker.fn;
    this.bundledConfig = worker.bundledConfig;
    this.fn.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: props.batchSize,
        maxConcurrency: props.maxConcurrency,
        reportBatchItemFailures: true,
      }),
    );
    // cdk-nag Serverless: an SQS-triggered function's failures are the queue's to keep, not a Lambda DLQ's.
    const acks: [Construct, string, string][] = [
      [
        this.deadLetterQueue,
        'Serverless-SQSRedrivePolicy',
        'This queue is itself the dead-letter queue of the task queue; an operator redrives it (docs/operations.md).',
      ],
      [
        this.fn,
        'Serverless-LambdaDLQ',
        'Invoked only by its SQS event source (synchronously): a Lambda DLQ applies to async invocations; a failed ' +
          "task goes back to the queue and, after its last delivery, to the queue's dead-letter queue (alarmed).",
      ],
      [
        this.fn,
        'Serverless-LambdaEventSourceMappingDestination',
        "SQS event sources take no on-failure destination (streams and Kafka only); the queue's redrive policy " +
          'is the failure destination, with an alarm on the dead-letter queue.',
      ],
    ];
    for (const [scope, id, reason] of acks) Validations.of(scope).acknowledge({ id, reason });
    new Alarm(this, 'DeadLettered', {
      alarmDescription: `Pulse ${handler}: tasks were dead-lettered after their last delivery (see the queue)`,
      metric: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5) }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    }).addAlarmAction(new SnsAction(alarmTopic));
    const maxAge = props.maxMessageAge ?? Duration.hours(6);
    new Alarm(this, 'OldestTask', {
      alarmDescription: `Pulse ${handler}: a task has waited in the queue for more than ${maxAge.toHumanString()} (the workers are not keeping up)`,
      metric: this.queue.metricApproximateAgeOfOldestMessage({ statistic: 'Maximum', period: Duration.minutes(5) }),
      threshold: maxAge.toSeconds(),
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      // An idle queue reports no age.
      treatMissingData: TreatMissingData.NOT_BREACHING,
    }).addAlarmAction(new SnsAction(alarmTopic));
  }
}
