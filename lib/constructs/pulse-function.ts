import { ArnFormat, type CfnElement, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { BUNDLED_CONFIG_FILE } from '../../src/app/bundled-config.ts';
import { JOB_METRICS, STACK_NAME_ENV } from '../../src/app/job-metric.ts';
import { NO_PAKO } from './bundle-aliases.ts';
import { type BundleFile, copyCommands, stageJsonFile } from './bundle-files.ts';
import { lambdaNodeOptions } from './node-options.ts';

export interface PulseFunctionProps {
  /** The handler lives in functions/<handler>/handler.ts. */
  readonly handler: string;
  readonly environment: Record<string, string>;
  readonly alarmTopic: ITopic;
  readonly timeout?: Duration;
  readonly memorySize?: number;
  /** Files copied next to the bundle (e.g. compiled email templates): source path → file name in the asset. */
  readonly assets?: Record<string, string>;
  /**
   * The function's part of pulse.config.json (lib/function-config.ts), written into the bundle as
   * `pulse.config.json`, where src/app/bundled-config.ts reads it.
   */
  readonly config?: object;
  /** The job whose `Pulse/JobFailed` metric gets an alarm here; none when another function's alarm watches it. */
  readonly jobFailedAlarm?: string;
  /** What the JobFailed alarm says a failure means. @default "the job reported a failure (see its log for the reasons)" */
  readonly jobFailedMeaning?: string;
  /**
   * What notifies: every run that reports a failure (`failedRun`, for jobs whose next run is a day away or that run
   * per event), or only failures no earlier run reported (`newFailure`, for hourly jobs whose failure persists
   * until the week ends: src/app/new-failures.ts); then JobFailed shows the state on the dashboard without
   * notifying. @default 'failedRun'
   */
  readonly notifyOn?: 'failedRun' | 'newFailure';
  /** Reserved concurrency: at most this many runs at once. @default none (the account's pool) */
  readonly reservedConcurrency?: number;
}

const PROJECT_ROOT = new URL('../..', import.meta.url).pathname;

/** Share of the timeout a run may take before the "near timeout" alarm fires. */
export const NEAR_TIMEOUT_SHARE = 0.9;

/**
 * A job's `Pulse` metric of this stack (`JobFailed`, `NewFailures`, `Bounced`, …: printed per run by
 * src/app/job-metric.ts), summed; the sample count of `JobFailed` is the number of runs that finished.
 */
export function jobMetric(
  scope: Construct,
  metricName: string,
  job: string,
  period: Duration,
  statistic: 'Sum' | 'SampleCount' = 'Sum',
): Metric {
  return new Metric({
    namespace: JOB_METRICS.namespace,
    metricName,
    dimensionsMap: { [JOB_METRICS.stackDimension]: Stack.of(scope).stackName, [JOB_METRICS.dimension]: job },
    statistic,
    period,
  });
}

/**
 * One of Pulse's Lambdas: Node 24 on arm64, bundled by the local esbuild (no Docker), the AWS SDK left to the
 * runtime, logs kept a year in its own log group (its role may write there and nowhere else: no managed policy), and
 * alarms to the alarm topic — the function failed, a run came near its timeout (the next slower one fails), or the
 * job ran and reported a failure (a held digest, a failed copy) through the `Pulse/JobFailed` metric, or, for the
 * hourly mailing jobs, a failure no earlier run reported (`Pulse/NewFailures`). docs/alarms.md has each alarm.
 */
export class PulseFunction extends Construct {
  public readonly fn: NodejsFunction;
  /** The alarm topic's action, for the alarms a subclass adds. */
  protected readonly alarmAction: SnsAction;
  /** The text of the bundle's pulse.config.json, if it gets one. */
  public readonly bundledConfig: string | undefined;
  /** The function's execution role (its own, with only the statements its job needs). */
  public readonly role: Role;
  public readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: PulseFunctionProps) {
    super(scope, id);
    const logGroup = new LogGroup(this, 'Logs', {
      retention: RetentionDays.ONE_YEAR,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.logGroup = logGroup;
    this.role = this.executionRole(props.handler, logGroup);
    const files: BundleFile[] = Object.entries(props.assets ?? {}).map(([from, to]) => [`${PROJECT_ROOT}${from}`, to]);
    this.bundledConfig = props.config && `${JSON.stringify(props.config, null, 2)}\n`;
    const staged = this.bundledConfig === undefined ? undefined : stageJsonFile(this.bundledConfig);
    if (staged) files.push([staged.path, BUNDLED_CONFIG_FILE]);
    const memorySize = props.memorySize ?? 512;
    const timeout = props.timeout ?? Duration.minutes(5);
    this.fn = new NodejsFunction(this, 'Function', {
      entry: `${PROJECT_ROOT}functions/${props.handler}/handler.ts`,
      handler: 'handler',
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize,
      timeout,
      ...(props.reservedConcurrency !== undefined ? { reservedConcurrentExecutions: props.reservedConcurrency } : {}),
      tracing: Tracing.ACTIVE,
      logGroup,
      role: this.role,
      environment: {
        ...props.environment,
        PULSE_JOB: props.handler,
        [STACK_NAME_ENV]: Stack.of(this).stackName,
        NODE_OPTIONS: lambdaNodeOptions(memorySize).join(' '),
      },
      bundling: {
        format: OutputFormat.ESM,
        target: 'node24',
        minify: true,
        sourceMap: true,
        // The Node 24 runtime ships the AWS SDK v3; bundling it would only grow the package.
        externalModules: ['@aws-sdk/*'],
        esbuildArgs: { '--alias:pako': NO_PAKO },
        banner: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
        commandHooks: {
          beforeBundling: () => [],
          beforeInstall: () => [],
          afterBundling: (_input: string, output: string) => copyCommands(files, output),
        },
      },
    });
    // Active tracing grants xray:PutTraceSegments and friends on `*` (on the role's default policy).
    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'X-Ray trace segments have no resource ARN.',
    });

    const action = new SnsAction(props.alarmTopic);
    this.alarmAction = action;
    new Alarm(this, 'Errors', {
      alarmDescription: `Pulse ${props.handler}: the function failed`,
      metric: this.fn.metricErrors({ period: Duration.hours(1) }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    }).addAlarmAction(action);
    // A timed-out run is an error (above); this is the warning before it: the slowest run of the hour took at least
    // 90 % of the timeout, so the data or the service has grown towards the limit.
    new Alarm(this, 'NearTimeout', {
      alarmDescription: `Pulse ${props.handler}: a run took at least ${NEAR_TIMEOUT_SHARE * 100} % of its timeout (${timeout.toHumanString()})`,
      metric: this.fn.metricDuration({ statistic: 'Maximum', period: Duration.hours(1) }),
      threshold: Math.floor(timeout.toMilliseconds() * NEAR_TIMEOUT_SHARE),
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    }).addAlarmAction(action);
    const job = props.jobFailedAlarm;
    if (job === undefined) return;
    const meaning = props.jobFailedMeaning ?? 'the job reported a failure (see its log for the reasons)';
    const newOnly = props.notifyOn === 'newFailure';
    const jobFailed = new Alarm(this, 'JobFailed', {
      alarmDescription: `Pulse ${job}: ${meaning}${newOnly ? ' (state only: NewFailure notifies)' : ''}`,
      metric: jobMetric(this, JOB_METRICS.failed, job, Duration.hours(1)),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    if (!newOnly) {
      jobFailed.addAlarmAction(action);
      return;
    }
    new Alarm(this, 'NewFailure', {
      alarmDescription: `Pulse ${job}: a new failure, not reported by an earlier run (see the log's errors); back to OK the next hour`,
      metric: jobMetric(this, JOB_METRICS.newFailures, job, Duration.hours(1)),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    }).addAlarmAction(action);
  }

  /**
   * The function's role: assumed by Lambda, allowed to write its own log group's streams. The statements its job
   * needs are added by the stack; tracing, event sources and destinations add theirs through CDK.
   */
  private executionRole(handler: string, logGroup: LogGroup): Role {
    const role = new Role(this, 'Role', {
      description: `Pulse ${handler}: the function's execution role`,
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
    });
    const stack = Stack.of(this);
    const group = stack.formatArn({
      service: 'logs',
      resource: 'log-group',
      resourceName: logGroup.logGroupName,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    role.addToPolicy(
      new PolicyStatement({
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [group, `${group}:log-stream:*`],
      }),
    );
    const groupId = stack.getLogicalId(logGroup.node.defaultChild as CfnElement);
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:<${groupId}>:log-stream:*]`,
      reason: "The log streams of the function's own log group (Lambda names a stream per container).",
    });
    return role;
  }
}
