import { Duration, Stack } from 'aws-cdk-lib';
import {
  AlarmStatusWidget,
  AlarmStatusWidgetSortBy,
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
/** CloudWatch's limit of alarms in one alarm status widget. */
const MAX_ALARMS_PER_WIDGET = 100;
const WIDTH = 24;

/**
 * One CloudWatch dashboard for an operator: every alarm's state first, then what the jobs did (runs, failed runs,
 * new failures, emails sent, files archived, mail bounced from the `Pulse` EMF metrics of src/app/job-metric.ts, one
 * line per `job` found by a search expression, so a new job shows up without a change here), how the functions ran
 * (duration, errors, throttles) and the copy queue (depth, oldest message, dead letters). `dashboardUrl` is the
 * console link, ready for a CfnOutput.
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
        markdown: `# Pulse\n${where}What each alarm means, how it resets and what to do: docs/alarms.md.`,
        width: WIDTH,
        height: 2,
      }),
    );
    // Every alarm's state at a glance (the widget holds at most 100), alarmed ones first.
    const alarms = props.alarms ?? [];
    for (let i = 0; i < alarms.length; i += MAX_ALARMS_PER_WIDGET)
      this.dashboard.addWidgets(
        new AlarmStatusWidget({
          title: alarms.length > MAX_ALARMS_PER_WIDGET ? `Alarms (${i / MAX_ALARMS_PER_WIDGET + 1})` : 'Alarms',
          alarms: alarms.slice(i, i + MAX_ALARMS_PER_WIDGET),
          sortBy: AlarmStatusWidgetSortBy.STATE_UPDATED_TIMESTAMP,
          width: WIDTH,
          height: Math.min(12, 2 + Math.ceil(Math.min(alarms.length - i, MAX_ALARMS_PER_WIDGET) / 4)),
        }),
      );

    const search = (metric: string, statistic: string, label: string) =>
      jobSearch(Stack.of(this).stackName, metric, statistic, label);
    this.dashboard.addWidgets(
      graph('Runs per job (run reports per hour)', [search('JobFailed', 'SampleCount', 'runs')]),
      graph('Failed runs per job', [search('JobFailed', 'Sum', 'failed')]),
      graph('New failures per job', [search('NewFailures', 'Sum', 'new failures')]),
      graph('Emails sent per job', [search('Sent', 'Sum', 'sent')]),
    );
    this.dashboard.addWidgets(
      graph('Files archived', [search('Archived', 'Sum', 'archived')]),
      graph('Mail bounced, complained, rejected', [
        search('Bounced', 'Sum', 'bounced'),
        search('Complained', 'Sum', 'complained'),
        search('Rejected', 'Sum', 'rejected'),
      ]),
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

/**
 * One line per `job` dimension value of a `Pulse` metric of this stack (a search: dashboards only, never alarms;
 * another stack in the account has its own `stack` value).
 */
function jobSearch(stack: string, metricName: string, statistic: string, label: string): MathExpression {
  return new MathExpression({
    expression: `SEARCH('{Pulse,job,stack} stack="${stack}" MetricName="${metricName}"', '${statistic}', ${HOUR.toSeconds()})`,
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
