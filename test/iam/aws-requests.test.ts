/**
 * The SDK command → IAM request table (aws-requests.ts) on hand-made calls: the variants AWS authorizes differently
 * from the command's name, and an unknown command failing rather than passing unjudged.
 */
import { describe, expect, it } from 'vitest';
import { type DeployedResources, iamRequestsFor, type SdkCall, UnmappedCallError } from './aws-requests.ts';

const KEY = 'arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const aws: DeployedResources = {
  partition: 'aws',
  account: '123456789012',
  deployed: (local) =>
    ({ 'pulse-archive': 'deployed-bucket', 'pulse-state': 'Deployed-Table', 'http://127.0.0.1:1/1/q': 'https://q' })[
      local
    ] ?? local,
  bucketKey: (bucket) => (bucket === 'deployed-bucket' ? KEY : undefined),
  partitionKey: () => 'pk',
  queueArn: (url) => (url === 'https://q' ? 'arn:aws:sqs:us-east-1:123456789012:q' : 'unknown'),
};
const call = (service: string, command: string, input: Record<string, unknown>): SdkCall => ({
  fn: 'archive-copy',
  service,
  command,
  region: 'us-east-1',
  input,
});
const object = 'arn:aws:s3:::deployed-bucket/pulse/a.zip';
const actionsOf = (c: SdkCall) => iamRequestsFor(c, aws).map((r) => `${r.action} ${r.resource}`);

describe('S3', () => {
  it('GetObject of a version is s3:GetObjectVersion; of the current object s3:GetObject; both decrypt', () => {
    expect(actionsOf(call('S3', 'GetObjectCommand', { Bucket: 'pulse-archive', Key: 'pulse/a.zip' }))).toEqual([
      `s3:GetObject ${object}`,
      `kms:Decrypt ${KEY}`,
    ]);
    expect(
      actionsOf(call('S3', 'GetObjectCommand', { Bucket: 'pulse-archive', Key: 'pulse/a.zip', VersionId: 'v1' })),
    ).toEqual([`s3:GetObjectVersion ${object}`, `kms:Decrypt ${KEY}`]);
    expect(
      actionsOf(call('S3', 'HeadObjectCommand', { Bucket: 'pulse-archive', Key: 'pulse/a.zip', VersionId: 'v1' })),
    ).toEqual([`s3:GetObjectVersion ${object}`]);
  });

  it('a conditional put is still s3:PutObject; multipart steps too, with the key for both directions', () => {
    expect(
      actionsOf(call('S3', 'PutObjectCommand', { Bucket: 'pulse-archive', Key: 'pulse/a.zip', IfNoneMatch: true })),
    ).toEqual([`s3:PutObject ${object}`, `kms:GenerateDataKey ${KEY}`]);
    for (const command of ['CreateMultipartUploadCommand', 'UploadPartCommand', 'CompleteMultipartUploadCommand'])
      expect(actionsOf(call('S3', command, { Bucket: 'pulse-archive', Key: 'pulse/a.zip', UploadId: true }))).toEqual([
        `s3:PutObject ${object}`,
        `kms:GenerateDataKey ${KEY}`,
        `kms:Decrypt ${KEY}`,
      ]);
    expect(
      actionsOf(call('S3', 'AbortMultipartUploadCommand', { Bucket: 'pulse-archive', Key: 'pulse/a.zip' })),
    ).toEqual([`s3:AbortMultipartUpload ${object}`]);
  });

  it('a listing is s3:ListBucket on the bucket with s3:prefix (none without a prefix)', () => {
    expect(
      iamRequestsFor(call('S3', 'ListObjectsCommand', { Bucket: 'pulse-archive', Prefix: 'pulse/m/' }), aws),
    ).toEqual([
      { action: 's3:ListBucket', resource: 'arn:aws:s3:::deployed-bucket', context: { 's3:prefix': 'pulse/m/' } },
    ]);
    expect(iamRequestsFor(call('S3', 'ListObjectsV2Command', { Bucket: 'pulse-archive' }), aws)).toEqual([
      { action: 's3:ListBucket', resource: 'arn:aws:s3:::deployed-bucket' },
    ]);
  });
});

describe('DynamoDB', () => {
  const table = 'arn:aws:dynamodb:us-east-1:123456789012:table/Deployed-Table';
  it('an item operation is checked against its partition key (document or marshalled)', () => {
    expect(
      iamRequestsFor(
        call('DynamoDB', 'GetCommand', { TableName: 'pulse-state', Key: { pk: 'digest#x', sk: 'y' } }),
        aws,
      ),
    ).toEqual([{ action: 'dynamodb:GetItem', resource: table, context: { 'dynamodb:LeadingKeys': ['digest#x'] } }]);
    expect(
      iamRequestsFor(
        call('DynamoDB', 'PutItemCommand', { TableName: 'pulse-state', ItemKey: { pk: { S: 'a#1' } } }),
        aws,
      ),
    ).toEqual([{ action: 'dynamodb:PutItem', resource: table, context: { 'dynamodb:LeadingKeys': ['a#1'] } }]);
  });

  it("a Query's leading key is the value its key condition fixes the partition key to", () => {
    const query = (input: Record<string, unknown>) =>
      iamRequestsFor(call('DynamoDB', 'QueryCommand', { TableName: 'pulse-state', ...input }), aws)[0]?.context;
    expect(
      query({
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': 'archive-run#r1', ':prefix': 'file#' },
      }),
    ).toEqual({ 'dynamodb:LeadingKeys': ['archive-run#r1'] });
    expect(
      query({
        KeyConditionExpression: '#k = :v',
        ExpressionAttributeNames: { '#k': 'pk' },
        ExpressionAttributeValues: { ':v': { S: 'archive-runs' } },
      }),
    ).toEqual({ 'dynamodb:LeadingKeys': ['archive-runs'] });
  });
});

describe('Secrets Manager, SQS, SES v2', () => {
  it('GetSecretValue: a name or partial ARN gets the suffix; SendMessageBatch is sqs:SendMessage on the queue', () => {
    expect(actionsOf(call('Secrets Manager', 'GetSecretValueCommand', { SecretId: 'smtp/creds' }))).toEqual([
      'secretsmanager:GetSecretValue arn:aws:secretsmanager:us-east-1:123456789012:secret:smtp/creds-AbCdEf',
    ]);
    // By ARN: a complete one as it is (any region or account it names), a partial one with the suffix too.
    const arn = 'arn:aws:secretsmanager:eu-west-1:210987654321:secret:pulse/ops';
    expect(actionsOf(call('Secrets Manager', 'GetSecretValueCommand', { SecretId: `${arn}-Xy12Z9` }))).toEqual([
      `secretsmanager:GetSecretValue ${arn}-Xy12Z9`,
    ]);
    expect(actionsOf(call('Secrets Manager', 'GetSecretValueCommand', { SecretId: arn }))).toEqual([
      `secretsmanager:GetSecretValue ${arn}-AbCdEf`,
    ]);
    expect(
      actionsOf(call('SQS', 'SendMessageBatchCommand', { QueueUrl: 'http://127.0.0.1:1/1/q', Entries: 3 })),
    ).toEqual(['sqs:SendMessage arn:aws:sqs:us-east-1:123456789012:q']);
  });

  it('SendEmail: the domain and address identities, the configuration set, with ses:FromAddress', () => {
    const requests = iamRequestsFor(
      call('SESv2', 'SendEmailCommand', { FromEmailAddress: 'Pulse <Pulse@Example.com>', ConfigurationSetName: 'cs' }),
      aws,
    );
    const ses = 'arn:aws:ses:us-east-1:123456789012';
    const context = { 'ses:FromAddress': 'pulse@example.com' };
    expect(requests).toEqual([
      { action: 'ses:SendEmail', resource: `${ses}:identity/example.com`, context },
      { action: 'ses:SendEmail', resource: `${ses}:identity/pulse@example.com`, context },
      { action: 'ses:SendEmail', resource: `${ses}:configuration-set/cs`, context },
    ]);
  });
});

it('a command with no row fails instead of passing unjudged', () => {
  expect(() => iamRequestsFor(call('S3', 'DeleteObjectCommand', { Bucket: 'b', Key: 'k' }), aws)).toThrow(
    UnmappedCallError,
  );
  expect(() => iamRequestsFor(call('S3', 'GetObjectCommand', { Bucket: 'pulse-archive' }), aws)).toThrow(/no Key/);
});
