import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { PulseStack } from '../lib/stacks/pulse-stack.ts';

const app = new App();
new PulseStack(app, 'Pulse');
// cdk-nag v3 runs as a policy-validation plugin: findings land in the synth report and fail `cdk synth`.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
