import { ArnFormat, CustomResource, Duration, Stack, Validations } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { PulseFunction } from './pulse-function.ts';

export interface ReportingServiceSecretProps {
  /** `deploy.secretName`. */
  readonly secretName: string;
  readonly alarmTopic: ITopic;
}

/**
 * The Reporting Service credentials secret, created or adopted at deploy time by a small custom resource
 * (functions/secret-setup, src/adapters/aws/stack-secret.ts) rather than declared as a CloudFormation resource: the
 * secret outlives the stack, and a stack created again (after a destroy, or a failed first create) adopts the secret
 * it left instead of failing on "already exists"; someone else's secret of that name is refused with a message
 * naming the way out. The stack's deletion leaves the secret, as RETAIN did. The setup function may describe,
 * create, restore and tag this one secret name, nothing else.
 */
export class ReportingServiceSecret extends Construct {
  public readonly secret: ISecret;
  public readonly secretName: string;
  /** The deploy-time function (its own role, log group and error alarm). */
  public readonly setup: PulseFunction;

  constructor(scope: Construct, id: string, props: ReportingServiceSecretProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.secretName = props.secretName;
    this.setup = new PulseFunction(this, 'Setup', {
      handler: 'secret-setup',
      environment: {},
      alarmTopic: props.alarmTopic,
      timeout: Duration.minutes(1),
      memorySize: 256,
    });
    // Secrets Manager appends six random characters to the name in the ARN.
    const arnPattern = stack.formatArn({
      service: 'secretsmanager',
      resource: 'secret',
      resourceName: `${props.secretName}-??????`,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    this.setup.fn.addToRolePolicy(
      new PolicyStatement({
        actions: [
          'secretsmanager:DescribeSecret',
          'secretsmanager:CreateSecret',
          'secretsmanager:RestoreSecret',
          'secretsmanager:TagResource',
        ],
        resources: [arnPattern],
      }),
    );
    Validations.of(this.setup.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:${props.secretName}-??????]`,
      reason: 'This one secret, by name: the six characters stand for the suffix Secrets Manager appends.',
    });
    Validations.of(this.setup.fn).acknowledge({
      id: 'Serverless-LambdaDLQ',
      reason: 'Invoked synchronously by CloudFormation during deploys only; a failure fails the deploy, visibly.',
    });
    const resource = new CustomResource(this, 'Resource', {
      serviceToken: this.setup.fn.functionArn,
      resourceType: 'Custom::PulseReportingServiceSecret',
      properties: {
        SecretName: props.secretName,
        StackName: stack.stackName,
        Description: 'Pulse: credentials for the Reporting Service API (JSON: userName, password)',
      },
    });
    this.secret = Secret.fromSecretCompleteArn(this, 'Secret', resource.getAttString('Arn'));
  }
}
