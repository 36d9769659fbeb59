/**
 * `pulse doctor`'s checks of the deployed stack itself: its outputs (CloudFormation DescribeStacks: the archive
 * bucket, the state table and the alarm topic the other checks then use), and whether anyone hears its alarms (SNS
 * ListSubscriptionsByTopic: at least one confirmed subscriber; an email subscription stays pending until its link is
 * clicked, and a pending one receives nothing). Subscribers are shown by protocol; only email addresses are named
 * (an HTTPS endpoint or a chat webhook URL may carry a token).
 */
import { type CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { ListSubscriptionsByTopicCommand, type SNSClient } from '@aws-sdk/client-sns';
import { type CheckResult, explainedFail, fail, ok, skip, warn } from './check-result.ts';

/** The outputs of the stack (lib/stacks/pulse-stack.ts `addOutputs`) the doctor reads. */
export interface StackOutputs {
  bucket?: string;
  table?: string;
  alarmTopicArn?: string;
}

const OUTPUT_NAMES: Record<string, keyof StackOutputs> = {
  ArchiveBucketName: 'bucket',
  StateTableName: 'table',
  AlarmTopicArn: 'alarmTopicArn',
};

/** The stack's outputs, with its check line; undefined outputs when it is not deployed (or cannot be read). */
export async function stackCheck(
  stackName: string,
  cloudFormation: () => CloudFormationClient,
): Promise<{ check: CheckResult; outputs: StackOutputs | undefined }> {
  const name = `stack ${stackName}`;
  try {
    const { Stacks } = await cloudFormation().send(new DescribeStacksCommand({ StackName: stackName }));
    const stack = Stacks?.[0];
    const outputs: StackOutputs = {};
    for (const o of stack?.Outputs ?? []) {
      const key = OUTPUT_NAMES[o.OutputKey ?? ''];
      if (key && o.OutputValue) outputs[key] = o.OutputValue;
    }
    const status = stack?.StackStatus ?? 'unknown';
    const detail = `${status} (DescribeStacks): its bucket, table and alarm topic are checked below`;
    return {
      check: /_COMPLETE$/.test(status) && !/ROLLBACK/.test(status) ? ok(name, detail) : warn(name, detail),
      outputs,
    };
  } catch (e) {
    if ((e as Error).name === 'ValidationError' && /does not exist/.test((e as Error).message))
      return {
        check: warn(name, 'not deployed (yet): `npx cdk deploy -c config=FILE`; the config names are checked instead'),
        outputs: undefined,
      };
    return { check: fail(name, 'DescribeStacks', e), outputs: undefined };
  }
}

/** Whether the alarm topic has a confirmed subscriber; pending ones are named. */
export async function alarmTopicCheck(topicArn: string | undefined, sns: () => SNSClient): Promise<CheckResult> {
  if (topicArn === undefined)
    return skip('alarm topic', 'not checked: name the deployed stack (--stack, or deploy.stackName in the config)');
  const name = `alarm topic ${topicArn.split(':').at(-1)}`;
  const confirmed = new Map<string, number>();
  const pending: string[] = [];
  try {
    let NextToken: string | undefined;
    do {
      const page = await sns().send(new ListSubscriptionsByTopicCommand({ TopicArn: topicArn, NextToken }));
      for (const s of page.Subscriptions ?? []) {
        const protocol = s.Protocol ?? 'unknown';
        if (s.SubscriptionArn === 'Deleted') continue;
        if (s.SubscriptionArn === 'PendingConfirmation')
          pending.push(protocol.startsWith('email') ? (s.Endpoint ?? protocol) : protocol);
        else confirmed.set(protocol, (confirmed.get(protocol) ?? 0) + 1);
      }
      NextToken = page.NextToken;
    } while (NextToken);
  } catch (e) {
    if ((e as Error).name === 'NotFoundException' || (e as Error).name === 'NotFound')
      return explainedFail(name, 'does not exist: deploy the stack', e);
    return fail(name, 'ListSubscriptionsByTopic', e);
  }
  const waiting =
    pending.length === 0
      ? ''
      : `; ${pending.length} pending confirmation (${pending.join(', ')}): receives nothing until its link is clicked`;
  const total = [...confirmed.values()].reduce((a, b) => a + b, 0);
  if (total === 0)
    return fail(
      name,
      `no confirmed subscriber: every alarm notifies nobody${waiting}. Subscribe with deploy.alarmEmail (and ` +
        `confirm the email AWS sends), or: aws sns subscribe --topic-arn ${topicArn} --protocol email ` +
        '--notification-endpoint ADDRESS',
    );
  const by = [...confirmed].map(([protocol, n]) => `${n} ${protocol}`).join(', ');
  return (pending.length === 0 ? ok : warn)(
    name,
    `${total} confirmed subscriber${total === 1 ? '' : 's'} (${by})${waiting}`,
  );
}
