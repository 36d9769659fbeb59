import { type CfnElement, Duration, Stack, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, type IMetric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { Schedule, type ScheduleExpression, ScheduleTargetInput, TimeWindow } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { JOB_METRICS } from '../../src/app/job-metric.ts';
import { jobMetric, PulseFunction, type PulseFunctionProps } from './pulse-function.ts';

/** When a job runs and how its missed runs are handled (lib/stacks/job-schedules.ts has one per job). */
export interface JobTiming {
  /** A cron in the job's IANA time zone (`ScheduleExpression.cron({ …, timeZone })`). */
  readonly schedule: ScheduleExpression;
  /** How much later than the cron EventBridge Scheduler may start a run (spreads load); none = on the minute. */
  readonly flexibleWindow?: Duration;
  /**
   * How late a run is still worth starting: Scheduler gives up handing it to Lambda after this (dead-letter queue),
   * and Lambda drops a queued or retried run after it (on-failure queue). At most 6 hours (Lambda's limit).
   */
  readonly maxEventAge: Duration;
  /** Lambda's tries again after a run failed (threw or timed out), 0–2; the job's runs are safe to repeat. */
  readonly retryAttempts: number;
  /**
   * The heartbeat: an alarm when no run reported success (`Pulse/JobSucceeded`) for this long, whole hours. Longer
   * than the gap between two runs plus the flexible window and a run's duration, so one late run is not an alarm.
   */
  readonly heartbeat: Duration;
}

export interface ScheduledJobProps extends Omit<PulseFunctionProps, 'handler' | 'jobFailedAlarm'>, JobTiming {
  /** Job name: the job metrics are reported under it, and the schedule is named after it. */
  readonly job: string;
  /** The function's folder, functions/<handler>/ (when the function is one step of the job). @default job */
  readonly handler?: string;
}

/**
 * Times Scheduler tries again to hand a run to Lambda (throttled, Lambda unavailable), with its back-off, within
 * `maxEventAge`. Its failures are the platform's, short-lived; the run itself is retried by Lambda (`retryAttempts`).
 */
export const SCHEDULER_RETRY_ATTEMPTS = 3;

/**
 * A Pulse function (pulse-function.ts, with its alarms) run by EventBridge Scheduler, with every way a run can go
 * missing made visible on the alarm topic:
 * - Scheduler could not invoke the function (after its retries): the event goes to the schedule's dead-letter queue;
 * - the function accepted the run but failed it (threw, timed out) after Lambda's retries, or the run waited too long
 *   in Lambda's queue: the run's event goes to the on-failure queue;
 * - either queue holding a message raises an alarm (messages kept 14 days: they are the evidence);
 * - no run finished for `heartbeat` (the schedule disabled or deleted, runs that never finish): the heartbeat alarm,
 *   on the sample count of `Pulse/JobFailed` (one per finished run) with missing data counted as breaching.
 */
export class ScheduledJob extends PulseFunction {
  public readonly schedule: Schedule;
  /** Scheduler's dead letters: runs it could not hand to Lambda. */
  public readonly scheduleDeadLetters: Queue;
  /** Lambda's on-failure destination: runs that failed after their retries or expired in Lambda's queue. */
  public readonly failedRuns: Queue;

  constructor(scope: Construct, id: string, props: ScheduledJobProps) {
    const { job, handler, schedule, flexibleWindow, maxEventAge, retryAttempts, heartbeat, ...rest } = props;
    super(scope, id, { ...rest, handler: handler ?? job, jobFailedAlarm: job });
    const heartbeatHours = heartbeat.toHours(); // throws unless whole hours
    if (heartbeatHours < 2 || heartbeatHours > 168)
      throw new Error(
        `${id}: heartbeat must be 2 to 168 hours (CloudWatch evaluates at most 7 days), not ${heartbeat}`,
      );

    const queue = (name: string) =>
      new Queue(this, name, {
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        retentionPeriod: Duration.days(14),
      });
    this.scheduleDeadLetters = queue('ScheduleDeadLetters');
    this.failedRuns = queue('FailedRuns');
    // cdk-nag: AwsSolutions now; the Serverless pack's ids too, so adding that pack needs nothing more here.
    const isDeadLetterQueue =
      'This queue is itself a dead-letter queue (of a schedule target or a Lambda on-failure destination).';
    for (const q of [this.scheduleDeadLetters, this.failedRuns])
      for (const id of ['AwsSolutions-SQS3', 'Serverless-SQSRedrivePolicy'])
        Validations.of(q).acknowledge({ id, reason: isDeadLetterQueue });
    Validations.of(this.fn).acknowledge({
      id: 'Serverless-LambdaDLQ',
      reason: 'Async invocations have an on-failure destination (the failed-runs queue), which supersedes a DLQ.',
    });

    this.fn.configureAsyncInvoke({ retryAttempts, maxEventAge, onFailure: new SqsDestination(this.failedRuns) });
    // A fixed name, `<stack>-<job>` (docs/alarms.md: `aws scheduler get-schedule --name Pulse-digest`), in the default
    // group. The role Scheduler assumes for this schedule alone (the target's own default is a role per function at
    // the stack's root): it may invoke this function and send to this dead-letter queue, and only Scheduler for this
    // account's default group may assume it (confused-deputy guard; Scheduler's source ARN is the schedule group's,
    // never a schedule's).
    const stack = Stack.of(this);
    const scheduleName = `${stack.stackName}-${job}`;
    const role = new Role(this, 'ScheduleRole', {
      description: `Pulse ${job}: EventBridge Scheduler invokes the function`,
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        conditions: {
          StringEquals: {
            'aws:SourceAccount': stack.account,
            'aws:SourceArn': stack.formatArn({
              service: 'scheduler',
              resource: 'schedule-group',
              resourceName: 'default',
            }),
          },
        },
      }),
    });
    const fnId = stack.getLogicalId(this.fn.node.defaultChild as CfnElement);
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${fnId}.Arn>:*]`,
      reason: "lambda:InvokeFunction on this one function: CDK's grant also names its versions and aliases (`:*`).",
    });
    this.schedule = new Schedule(this, 'Schedule', {
      scheduleName,
      description: `Pulse ${job}`,
      schedule,
      timeWindow: flexibleWindow ? TimeWindow.flexible(flexibleWindow) : TimeWindow.off(),
      target: new LambdaInvoke(this.fn, {
        role,
        // A scheduled run: no `detail`, so the handler takes the job's defaults (see functions/<job>/handler.ts).
        input: ScheduleTargetInput.fromObject({}),
        retryAttempts: SCHEDULER_RETRY_ATTEMPTS,
        maxEventAge,
        deadLetterQueue: this.scheduleDeadLetters,
      }),
    });

    const visible = (q: Queue) => q.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5) });
    const alarms: [string, string, IMetric][] = [
      [
        'ScheduleDeadLettered',
        `Pulse ${job}: EventBridge Scheduler could not start a run (see the schedule's dead-letter queue)`,
        visible(this.scheduleDeadLetters),
      ],
      [
        'RunFailed',
        `Pulse ${job}: a run failed after its retries or never started in time (see the failed-runs queue)`,
        visible(this.failedRuns),
      ],
    ];
    for (const [name, alarmDescription, metric] of alarms)
      new Alarm(this, name, {
        alarmDescription,
        metric,
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }).addAlarmAction(this.alarmAction);

    // Every one of the last `heartbeatHours` hourly periods without a finished run ("N of N"), rather than one
    // N-hour period: clock-aligned long periods judge fixed blocks (a gap across two goes unseen, a block just begun
    // is empty); hourly ones judge the last N hours, whenever the alarm is evaluated. A finished run is any run that
    // printed its metrics (JobFailed's sample count), failed or not: a held digest failing every hour is the
    // JobFailed / NewFailure alarms' to report, and must not keep this one in ALARM, hiding a schedule that stops.
    new Alarm(this, 'Heartbeat', {
      alarmDescription: `Pulse ${job}: no run finished in ${heartbeatHours} hours (runs not happening, or not finishing)`,
      metric: jobMetric(this, JOB_METRICS.failed, job, Duration.hours(1), 'SampleCount'),
      threshold: 1,
      evaluationPeriods: heartbeatHours,
      datapointsToAlarm: heartbeatHours,
      comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
      treatMissingData: TreatMissingData.BREACHING,
    }).addAlarmAction(this.alarmAction);
  }
}
