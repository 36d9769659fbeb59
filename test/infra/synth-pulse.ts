import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { loadDeployConfig } from '../../lib/deploy-config.ts';
import { PulseStack, type PulseStackProps } from '../../lib/stacks/pulse-stack.ts';

/** One entry per violating construct, e.g. "AwsSolutions AwsSolutions-S1 error Pulse/Bad/Resource". */
export type Finding = string;

/** The README's example production config: what the stack is tested with unless a test gives its own. */
export const PRODUCTION_EXAMPLE = new URL('../../examples/pulse.production.json', import.meta.url).pathname;
export const productionConfig = () => loadDeployConfig(PRODUCTION_EXAMPLE);

export interface SynthOptions {
  /** The stack's props; `config` defaults to the example production config. */
  readonly props?: Partial<PulseStackProps>;
  /** Lets a test add resources (e.g. a deliberately non-compliant one) before synthesis. */
  readonly extend?: (stack: PulseStack) => void;
  /** false mirrors `cdk synth`: a failed validation throws instead of only writing the report. */
  readonly reportOnly?: boolean;
}

// The same feature flags as `cdk synth`, so tests see the template that would be deployed.
const cdkContext = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')).context;

/** Builds the app the way bin/app.ts does (stack + cdk-nag's AwsSolutions and Serverless packs) and synthesizes it. */
export function synthPulse(options: SynthOptions = {}) {
  const app = new App({
    context: {
      ...cdkContext,
      'aws:cdk:bundling-stacks': [], // never bundle assets (no Docker/esbuild) in unit tests
      '@aws-cdk/core:failSynthOnValidationErrors': !(options.reportOnly ?? true),
    },
  });
  const stack = new PulseStack(app, 'Pulse', { ...options.props, config: options.props?.config ?? productionConfig() });
  options.extend?.(stack);
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
  const assembly = app.synth();
  const reported = readFindings(assembly.directory);
  return {
    stack,
    template: Template.fromStack(stack),
    /** cdk-nag's findings (AwsSolutions, Serverless). */
    findings: reported.filter((f) => !f.startsWith(ANNOTATIONS)),
    /** The stack's own synth warnings, e.g. "pulse:alarms-unsubscribed". */
    warnings: reported.filter((f) => f.startsWith(ANNOTATIONS)),
  };
}

/** The plugin name under which the validation report carries the constructs' annotations (not cdk-nag's). */
const ANNOTATIONS = 'Construct Annotations';

/**
 * cdk-nag v3 emits no annotations: it is a policy-validation plugin whose unacknowledged
 * violations land in the cloud assembly's validation-report.json (acknowledged ones are dropped).
 */
function readFindings(assemblyDir: string): Finding[] {
  const report = JSON.parse(readFileSync(join(assemblyDir, 'validation-report.json'), 'utf8')) as ValidationReport;
  return report.pluginReports.flatMap((plugin) =>
    plugin.violations.flatMap((v) =>
      v.violatingConstructs.map((c) => `${plugin.pluginName} ${v.ruleName} ${v.severity} ${c.constructPath}`),
    ),
  );
}

interface ValidationReport {
  pluginReports: {
    pluginName: string;
    violations: { ruleName: string; severity: string; violatingConstructs: { constructPath: string }[] }[];
  }[];
}

/**
 * The alarms of an hourly mailing job (lib/constructs/pulse-function.ts `notifyOn: 'newFailure'`): JobFailed shows
 * a failing hour without notifying; NewFailure notifies each failure no earlier run reported.
 */
export function expectNewFailureAlarms(template: Template, job: string, stack = 'Pulse'): void {
  const dimensions = [
    { Name: 'job', Value: job },
    { Name: 'stack', Value: stack },
  ];
  template.hasResourceProperties('AWS::CloudWatch::Alarm', {
    MetricName: 'JobFailed',
    Namespace: 'Pulse',
    Dimensions: dimensions,
    AlarmActions: Match.absent(),
  });
  template.hasResourceProperties('AWS::CloudWatch::Alarm', {
    MetricName: 'NewFailures',
    Namespace: 'Pulse',
    Dimensions: dimensions,
    Statistic: 'Sum',
    Threshold: 1,
    AlarmActions: Match.anyValue(),
  });
}
