import { Duration, Stack } from 'aws-cdk-lib';
import {
  AlarmStatusWidget,
  Dashboard,
  GraphWidget,
  type IAlarm,
  type IMetric,
  MathExpression,
  TextWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface PulseDashboardProps {
  /** Pulse's functions: duration, errors and throttles of each. */
  readonly functions: IFunction[];
  /** The archive's copy queue: depth and age of its oldest message. */
  readonly copyQueue?: IQueue;
  /** Dead-letter queues to show beside it (copy tasks, schedules): anything there raises an alarm. */
  readonly deadLetterQueues?: IQueue[];
  /** Where the alarms go: named in the dashboard's header. */
  readonly alarmTopic?: ITopic;
  /** Alarms whose state the dashboard shows at the top. */
  readonly alarms?: IAlarm[];
  /** @default a name CloudFormation generates */
  readonly dashboardName?: string;
}

const HOUR = Duration.hours(1);
const WIDTH = 24;

/**
 * One CloudWatch dashboard for an operator: what the jobs did (runs, emails sent, files archived, failed runs from
 * the `Pulse` EMF metrics of src/app/job-metric.ts, one line per `job` found by a search expression, so a new job
 * shows up without a change here), how the functions ran (duration, errors, throttles) and the copy queue (depth,
 * oldest message, dead letters). `dashboardUrl` is the console link, ready for a CfnOutput.
 */
export class PulseDashboard extends Construct {
  public readonly dashboard: Dashboard;
  /** `https://<region>.console.aws.amazon.com/cloudwatch/home?region=<region>#dashboards:name=<name>` */
  public readonly dashboardUrl: string;

  constructor(scope: Construct, id: string, props: PulseDashboardProps) {
    super(scope, id);
    this.dashboard = new Dashboard(this, 'Dashboard', {
      ...(props.dashboardName ? { dashboardName: props.dashboardName } : {}),
      defaultInterval: Duration.days(7),
    });
    const { region } = Stack.of(this);
    this.dashboardUrl = `https://${region}.console.aws.amazon.com/cloudwatch/home?region=${region}#dashboards:name=${this.dashboard.dashboardName}`;

    const where = props.alarmTopic ? `Alarms go to the SNS topic \`${props.alarmTopic.topicName}\`. ` : '';
    this.dashboard.addWidgets(
      new TextWidget({
        markdown: `# Pulse\n${where}What each alarm means and what to do: README "Deploy", *Alarms*.`,
        width: WIDTH,
        height: 2,
      }),
    );
    if (props.alarms && props.alarms.length > 0)
      this.dashboard.addWidgets(new AlarmStatusWidget({ title: 'Alarms', alarms: props.alarms, width: WIDTH }));

    this.dashboard.addWidgets(
      graph('Runs per job (run reports per hour)', [jobSearch('JobFailed', 'SampleCount', 'runs')]),
      graph('Failed runs per job', [jobSearch('JobFailed', 'Sum', 'failed')]),
      graph('Emails sent per job', [jobSearch('Sent', 'Sum', 'sent')]),
      graph('Files archived', [jobSearch('Archived', 'Sum', 'archived')]),
    );
    const fns = props.functions;
    this.dashboard.addWidgets(
      graph(
        'Function duration, maximum (ms)',
        fns.map((fn) => fn.metricDuration({ statistic: 'Maximum', period: HOUR, label: labelOf(fn) })),
        8,
      ),
      graph(
        'Function errors',
        fns.map((fn) => fn.metricErrors({ statistic: 'Sum', period: HOUR, label: labelOf(fn) })),
        8,
      ),
      graph(
        'Function throttles',
        fns.map((fn) => fn.metricThrottles({ statistic: 'Sum', period: HOUR, label: labelOf(fn) })),
        8,
      ),
    );

    const queue = props.copyQueue;
    const dead = props.deadLetterQueues ?? [];
    if (queue === undefined && dead.length === 0) return;
    const fiveMinutes = { period: Duration.minutes(5), statistic: 'Maximum' };
    this.dashboard.addWidgets(
      ...(queue
        ? [
            graph('Copy queue: tasks waiting', [queue.metricApproximateNumberOfMessagesVisible(fiveMinutes)], 8),
            graph('Copy queue: oldest task (s)', [queue.metricApproximateAgeOfOldestMessage(fiveMinutes)], 8),
          ]
        : []),
      ...(dead.length > 0
        ? [
            graph(
              'Dead-letter queues: messages',
              dead.map((q) => q.metricApproximateNumberOfMessagesVisible({ ...fiveMinutes, label: labelOf(q) })),
              8,
            ),
          ]
        : []),
    );
  }
}

function graph(title: string, metrics: IMetric[], width = 6): GraphWidget {
  return new GraphWidget({ title, left: metrics, width, height: 6, leftYAxis: { min: 0 } });
}

/** One line per `job` dimension value of a `Pulse` metric (a search: dashboards only, never alarms). */
function jobSearch(metricName: string, statistic: string, label: string): MathExpression {
  return new MathExpression({
    expression: `SEARCH('{Pulse,job} MetricName="${metricName}"', '${statistic}', ${HOUR.toSeconds()})`,
    usingMetrics: {},
    label,
    period: HOUR,
  });
}

/** A readable label: the construct path below the stack, without the generic leaf names. */
function labelOf(c: Construct): string {
  const generic = new Set(['Function', 'Worker', 'Resource', 'Queue', 'Default']);
  const scopes = c.node.scopes;
  const path = scopes
    .slice(scopes.indexOf(Stack.of(c)) + 1)
    .map((s) => s.node.id)
    .filter((segment) => !generic.has(segment));
  return path.join('/') || c.node.id;
}
