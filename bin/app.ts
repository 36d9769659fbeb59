import { existsSync } from 'node:fs';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { PulseStack } from '../lib/stacks/pulse-stack.ts';
import { loadConfig } from '../src/config/load.ts';

// The same pulse.config.json as the CLI ($PULSE_CONFIG or ./pulse.config.json); the bundled example otherwise.
const path =
  process.env.PULSE_CONFIG ?? (existsSync('pulse.config.json') ? 'pulse.config.json' : 'examples/pulse.config.json');
const app = new App();
new PulseStack(app, 'Pulse', { config: loadConfig(path) });
// cdk-nag v3 runs as a policy-validation plugin: findings land in the synth report and fail `cdk synth`.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
