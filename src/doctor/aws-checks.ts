/**
 * `pulse doctor`'s checks of what the config names outside the Reporting Service: the deployed stack's outputs when
 * it is named (stack-checks.ts: they name the bucket, table and alarm topic), the archive bucket (HeadBucket),
 * the state table (DescribeTable) and the addresses suppressed in it (suppression-checks.ts), and the mail transport: for SES the sender's identity (verified?) and the account
 * (out of the sandbox?), for SMTP a connection and EHLO (and the login, when a credentials secret is set), never a
 * message; last, whether the alarm topic has a confirmed subscriber. What the config does not name is skipped.
 */
import type { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { HeadBucketCommand, type S3Client } from '@aws-sdk/client-s3';
import { GetAccountCommand, GetEmailIdentityCommand, type SESv2Client } from '@aws-sdk/client-sesv2';
import type { SNSClient } from '@aws-sdk/client-sns';
import type { PulseConfig } from '../config/schema.ts';
import { type CheckResult, explainedFail, fail, ok, skip, warn } from './check-result.ts';
import { alarmTopicCheck, type StackOutputs, stackCheck } from './stack-checks.ts';
import { suppressionChecks } from './suppression-checks.ts';

/** Created only for the checks the config calls for. */
export interface AwsCheckClients {
  s3(): S3Client;
  dynamodb(): DynamoDBClient;
  ses(region: string | undefined): SESv2Client;
  /** The configured SMTP transport (with its credentials secret, if any). */
  smtp(): { verify(): Promise<void> };
  cloudFormation(): CloudFormationClient;
  sns(): SNSClient;
  /** Names that replace the config's and the stack's (`--bucket`, `--table`, `--alarm-topic`). */
  bucket?: string | undefined;
  table?: string | undefined;
  alarmTopic?: string | undefined;
  /** The deployed stack whose outputs name them (`--stack`, else deploy.stackName of a config with a deploy section). */
  stackName?: string | undefined;
}

export async function* awsChecks(config: PulseConfig, clients: AwsCheckClients): AsyncGenerator<CheckResult> {
  let outputs: StackOutputs | undefined;
  if (clients.stackName !== undefined) {
    const stack = await stackCheck(clients.stackName, () => clients.cloudFormation());
    yield stack.check;
    outputs = stack.outputs;
  }
  yield await bucketCheck(clients.bucket ?? outputs?.bucket ?? config.archive?.bucket, clients);
  const table = clients.table ?? outputs?.table ?? config.state?.tableName;
  const tableResult = await tableCheck(table, clients);
  yield tableResult;
  yield* suppressionChecks(table, tableResult, () => clients.dynamodb());
  const { transport } = config.mail;
  if (transport.kind === 'ses') {
    yield* sesChecks(config.mail.from, clients.ses(transport.region));
    yield skip('SMTP', 'not configured (mail.transport is SES)');
  } else {
    yield skip('SES', 'not configured (mail.transport is SMTP)');
    yield await smtpCheck(transport, clients);
  }
  yield await alarmTopicCheck(clients.alarmTopic ?? outputs?.alarmTopicArn, () => clients.sns());
}

const httpStatus = (e: unknown): number | undefined =>
  (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;

async function bucketCheck(bucket: string | undefined, clients: AwsCheckClients): Promise<CheckResult> {
  if (bucket === undefined) return skip('archive bucket', 'not configured (no "archive" section)');
  const name = `archive bucket ${bucket}`;
  try {
    await clients.s3().send(new HeadBucketCommand({ Bucket: bucket }));
    return ok(name, 'reachable (HeadBucket)');
  } catch (e) {
    const status = httpStatus(e);
    if (status === 404)
      return explainedFail(name, 'does not exist: deploy the stack, or set archive.bucket (or --bucket)', e);
    if (status === 403)
      return explainedFail(name, 'access denied (HeadBucket): check the AWS credentials and s3:ListBucket on it', e);
    return fail(name, 'HeadBucket', e);
  }
}

async function tableCheck(table: string | undefined, clients: AwsCheckClients): Promise<CheckResult> {
  if (table === undefined) return skip('state table', 'not configured (no "state" section)');
  const name = `state table ${table}`;
  try {
    const { Table } = await clients.dynamodb().send(new DescribeTableCommand({ TableName: table }));
    const status = Table?.TableStatus ?? 'unknown';
    return status === 'ACTIVE'
      ? ok(name, 'ACTIVE (DescribeTable)')
      : warn(name, `status ${status}: usable once ACTIVE`);
  } catch (e) {
    if ((e as Error).name === 'ResourceNotFoundException')
      return explainedFail(name, 'does not exist: deploy the stack, or set state.tableName (or --table)', e);
    return fail(name, 'DescribeTable', e);
  }
}

/** The SES checks in the region they run in (mail.transport.region, else the AWS environment's). */
async function* sesChecks(from: string, ses: SESv2Client): AsyncGenerator<CheckResult> {
  let region: string;
  try {
    region = await ses.config.region();
  } catch (e) {
    // No region anywhere ("Region is missing"): neither check can be made, and each says so on its own line.
    yield fail(`SES identity ${from}`, 'GetEmailIdentity', e);
    yield fail('SES account', 'GetAccount', e);
    return;
  }
  yield await sesIdentityCheck(from, ses, region);
  yield await sesAccountCheck(ses, region);
}

/** The sender address, or else its domain, as an SES identity: verified for sending? */
async function sesIdentityCheck(from: string, ses: SESv2Client, region: string): Promise<CheckResult> {
  const name = `SES identity ${from}`;
  const domain = from.slice(from.lastIndexOf('@') + 1);
  try {
    for (const identity of [from, domain]) {
      let answer: { VerificationStatus?: string | undefined; VerifiedForSendingStatus?: boolean | undefined };
      try {
        answer = await ses.send(new GetEmailIdentityCommand({ EmailIdentity: identity }));
      } catch (e) {
        if ((e as Error).name === 'NotFoundException') continue;
        throw e;
      }
      if (answer.VerificationStatus === 'SUCCESS' && answer.VerifiedForSendingStatus !== false)
        return ok(name, `verified in ${region}${identity === domain ? ` (domain ${domain})` : ''}`);
      return fail(
        name,
        `${identity} is not verified in ${region} (status ${answer.VerificationStatus ?? 'unknown'}): ` +
          'finish the verification (the link in the email, or the DKIM records of the domain)',
      );
    }
    return fail(
      name,
      `neither ${from} nor ${domain} is an SES identity in ${region}: ` +
        `\`aws sesv2 create-email-identity --email-identity ${domain}\`, then publish its DKIM records`,
    );
  } catch (e) {
    return fail(name, 'GetEmailIdentity', e);
  }
}

async function sesAccountCheck(ses: SESv2Client, region: string): Promise<CheckResult> {
  const name = `SES account in ${region}`;
  try {
    const account = await ses.send(new GetAccountCommand({}));
    if (account.SendingEnabled === false)
      return fail(name, 'sending is paused for this account: see the SES console (reputation) before Pulse can send');
    if (account.ProductionAccessEnabled !== true)
      return fail(
        name,
        'in the SES sandbox: mail goes only to verified addresses; request production access ' +
          '(`aws sesv2 put-account-details`, docs/operations.md)',
      );
    return ok(name, 'production access, sending enabled');
  } catch (e) {
    return fail(name, 'GetAccount', e);
  }
}

async function smtpCheck(
  transport: Extract<PulseConfig['mail']['transport'], { kind: 'smtp' }>,
  clients: AwsCheckClients,
): Promise<CheckResult> {
  const name = `SMTP ${transport.host}:${transport.port}`;
  const login = transport.credentialsSecretId ? ', login accepted' : '';
  try {
    await clients.smtp().verify();
    return ok(name, `connected, EHLO answered${login} (nothing sent)`);
  } catch (e) {
    return fail(name, 'connect and EHLO', e);
  }
}
