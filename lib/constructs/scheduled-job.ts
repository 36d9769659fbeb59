import { Duration } from 'aws-cdk-lib';
import { Rule, type Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { Construct } from 'constructs';
import { PulseFunction, type PulseFunctionProps } from './pulse-function.ts';

export interface ScheduledJobProps extends Omit<PulseFunctionProps, 'handler' | 'jobFailedAlarm'> {
  /** Job name: the handler lives in functions/<job>/handler.ts and reports the `JobFailed` metric under it. */
  readonly job: string;
  readonly schedule: Schedule;
}

/** A Pulse function (pulse-function.ts, with both its alarms) on an EventBridge schedule. */
export class ScheduledJob extends PulseFunction {
  constructor(scope: Construct, id: string, props: ScheduledJobProps) {
    const { job, schedule, ...rest } = props;
    super(scope, id, { ...rest, handler: job, jobFailedAlarm: job });
    new Rule(this, 'Schedule', {
      schedule,
      targets: [new LambdaFunction(this.fn, { retryAttempts: 2, maxEventAge: Duration.hours(1) })],
    });
  }
}
