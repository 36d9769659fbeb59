import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { deployConfigPath, loadDeployConfig } from '../lib/deploy-config.ts';
import { PulseStack } from '../lib/stacks/pulse-stack.ts';
import { ConfigError } from '../src/config/load.ts';
import { deployNames } from '../src/config/schema.ts';

const app = new App();
try {
  // Always named (`-c config=FILE` or $PULSE_CONFIG), never a default file: see lib/deploy-config.ts.
  const config = loadDeployConfig(deployConfigPath(app.node.tryGetContext('config'), process.env));
  // The construct id is the stack's name (deploy.stackName): `cdk deploy <name>` selects it.
  new PulseStack(app, deployNames(config).stackName, { config });
} catch (e) {
  if (!(e instanceof ConfigError)) throw e;
  // One line naming the file and field, not a stack trace through the CDK app.
  process.stderr.write(`${e.message}\n`);
  process.exit(2);
}
// cdk-nag v3 runs as policy-validation plugins (AwsSolutions and Serverless): findings land in the synth report and
// fail `cdk synth`.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
