/**
 * What AWS authorizes for each SDK command Pulse's Lambdas send: the IAM action(s), the resource ARN and the
 * condition context keys the stack's policies test (s3:prefix, dynamodb:LeadingKeys, ses:FromAddress), one row per
 * command. A recorded command with no row throws UnmappedCallError, so a new SDK call in the code fails the IAM tests
 * until someone says here what it needs.
 *
 * Sources: the Service Authorization Reference (actions, resources, condition keys per service) and the services'
 * guides where the action is not the command's name: GetObject/HeadObject of a version is s3:GetObjectVersion;
 * If-None-Match does not change s3:PutObject; every multipart step but abort is s3:PutObject; a listing is
 * s3:ListBucket on the bucket with `s3:prefix`; with SSE-KMS (the bucket's default key) S3 uses the caller's
 * permissions on the key: kms:GenerateDataKey to write, kms:Decrypt to read and for multipart uploads; a DynamoDB
 * item operation is checked against `dynamodb:LeadingKeys` = its partition key value; SendMessageBatch is
 * sqs:SendMessage; SES v2 SendEmail is ses:SendEmail on the sending identity (the address or its domain, whichever
 * SES uses: both are checked) and on the configuration set when one is named, with `ses:FromAddress`.
 */
import type { IamRequest } from './simulate.ts';

/** One SDK command as the recorder wrote it (test/functions/bundled/sdk-call-recorder.mjs). */
export interface SdkCall {
  /** The Pulse function (PULSE_JOB) that sent it. */
  fn: string;
  /** AWS_LAMBDA_FUNCTION_NAME of the container, and the client's class name (as recorded; not used here). */
  lambda?: string;
  client?: string;
  /** The client's service id: S3, DynamoDB, Secrets Manager, SQS, SESv2. */
  service: string;
  /** The command's class name: GetObjectCommand, lib-dynamodb's GetCommand, … */
  command: string;
  region: string;
  /** Only the fields that say what is touched (no bodies, values or message contents). */
  input: Record<string, unknown>;
}

/** What the mapping needs to know of the deployed account. */
export interface DeployedResources {
  partition: string;
  account: string;
  /** The deployed name or ARN a local peer's name stands for (bucket, table, secret ARN, queue URL); else itself. */
  deployed(local: string): string;
  /** The KMS key ARN of a bucket's default encryption, if SSE-KMS. */
  bucketKey(bucket: string): string | undefined;
  /** A table's partition key attribute. */
  partitionKey(table: string): string;
  /** A queue's ARN from its URL. */
  queueArn(url: string): string;
}

export class UnmappedCallError extends Error {
  override name = 'UnmappedCallError';
}

type Mapping = (call: SdkCall, aws: DeployedResources) => IamRequest[];

const field = (call: SdkCall, name: string): string => {
  const value = call.input[name];
  if (typeof value !== 'string' || value === '')
    throw new UnmappedCallError(`${call.service} ${call.command}: no ${name} recorded`);
  return value;
};

// --- S3 -------------------------------------------------------------------------------------------------------

const bucketOf = (call: SdkCall, aws: DeployedResources) => aws.deployed(field(call, 'Bucket'));
const objectArn = (call: SdkCall, aws: DeployedResources) =>
  `arn:${aws.partition}:s3:::${bucketOf(call, aws)}/${field(call, 'Key')}`;
/** The bucket key's actions an S3 request needs under SSE-KMS (none without a key). */
const bucketKey = (call: SdkCall, aws: DeployedResources, actions: string[]): IamRequest[] => {
  const key = aws.bucketKey(bucketOf(call, aws));
  return key === undefined ? [] : actions.map((action) => ({ action, resource: key }));
};
const readObject =
  (decrypts: boolean): Mapping =>
  (call, aws) => [
    {
      action: call.input.VersionId === undefined ? 's3:GetObject' : 's3:GetObjectVersion',
      resource: objectArn(call, aws),
    },
    ...(decrypts ? bucketKey(call, aws, ['kms:Decrypt']) : []),
  ];
const writeObject =
  (keyActions: string[]): Mapping =>
  (call, aws) => [{ action: 's3:PutObject', resource: objectArn(call, aws) }, ...bucketKey(call, aws, keyActions)];
const listBucket: Mapping = (call, aws) => [
  {
    action: 's3:ListBucket',
    resource: `arn:${aws.partition}:s3:::${bucketOf(call, aws)}`,
    ...(typeof call.input.Prefix === 'string' ? { context: { 's3:prefix': call.input.Prefix } } : {}),
  },
];

// --- DynamoDB (the client's commands and lib-dynamodb's document commands) --------------------------------------

/** A key attribute's value, marshalled (`{ S: … }`) or not. */
const plain = (value: unknown): string => {
  const v = value !== null && typeof value === 'object' && 'S' in value ? (value as { S: unknown }).S : value;
  if (typeof v !== 'string' && typeof v !== 'number')
    throw new UnmappedCallError(`a key value ${JSON.stringify(value)}`);
  return String(v);
};
const tableArn = (call: SdkCall, aws: DeployedResources, table: string) =>
  `arn:${aws.partition}:dynamodb:${call.region}:${aws.account}:table/${table}`;
const item =
  (action: string, keyField: 'Key' | 'ItemKey'): Mapping =>
  (call, aws) => {
    const table = aws.deployed(field(call, 'TableName'));
    const key = call.input[keyField] as Record<string, unknown> | undefined;
    const pk = aws.partitionKey(table);
    if (!key || !(pk in key)) throw new UnmappedCallError(`${call.command}: no partition key ${pk} recorded`);
    return [{ action, resource: tableArn(call, aws, table), context: { 'dynamodb:LeadingKeys': [plain(key[pk])] } }];
  };
/** The partition key value a Query's key condition fixes (`pk = :pk`, or `#k = :v` with names). */
const query: Mapping = (call, aws) => {
  const table = aws.deployed(field(call, 'TableName'));
  const pk = aws.partitionKey(table);
  const expression = field(call, 'KeyConditionExpression');
  const names = (call.input.ExpressionAttributeNames ?? {}) as Record<string, string>;
  const values = (call.input.ExpressionAttributeValues ?? {}) as Record<string, unknown>;
  const leading: string[] = [];
  for (const m of expression.matchAll(/([#\w]+)\s*=\s*(:\w+)/g)) {
    const attribute = m[1]!.startsWith('#') ? names[m[1]!] : m[1];
    if (attribute === pk) leading.push(plain(values[m[2]!]));
  }
  if (leading.length !== 1) throw new UnmappedCallError(`Query: no partition key equality in ${expression}`);
  return [
    { action: 'dynamodb:Query', resource: tableArn(call, aws, table), context: { 'dynamodb:LeadingKeys': leading } },
  ];
};

// --- Secrets Manager, SQS, SES v2 -------------------------------------------------------------------------------

/**
 * IAM authorizes a secret's request on its complete ARN, however the call names it: a complete ARN as it is; a
 * partial ARN (no six-character suffix) or a name plus the six characters Secrets Manager appends.
 */
const secretArn = (call: SdkCall, aws: DeployedResources, id: string): string => {
  const deployed = aws.deployed(id);
  if (!deployed.startsWith('arn:'))
    return `arn:${aws.partition}:secretsmanager:${call.region}:${aws.account}:secret:${deployed}-AbCdEf`;
  return /-[A-Za-z0-9]{6}$/.test(deployed) ? deployed : `${deployed}-AbCdEf`;
};
const onSecret =
  (...actions: string[]): Mapping =>
  (call, aws) =>
    actions.map((action) => ({ action, resource: secretArn(call, aws, field(call, 'SecretId')) }));
/** CreateSecret names the secret it makes; with tags it needs TagResource too. */
const createSecret: Mapping = (call, aws) => {
  const resource = secretArn(call, aws, field(call, 'Name'));
  return [
    { action: 'secretsmanager:CreateSecret', resource },
    ...(call.input.Tags === true ? [{ action: 'secretsmanager:TagResource', resource }] : []),
  ];
};
const sendMessage: Mapping = (call, aws) => [
  { action: 'sqs:SendMessage', resource: aws.queueArn(aws.deployed(field(call, 'QueueUrl'))) },
];
const sendEmail: Mapping = (call, aws) => {
  const from = field(call, 'FromEmailAddress');
  const address = (/<([^<>]+)>\s*$/.exec(from)?.[1] ?? from).trim().toLowerCase();
  const context = { 'ses:FromAddress': address };
  const arn = (resource: string) => `arn:${aws.partition}:ses:${call.region}:${aws.account}:${resource}`;
  const identities =
    typeof call.input.FromEmailAddressIdentityArn === 'string'
      ? [call.input.FromEmailAddressIdentityArn]
      : [arn(`identity/${address.slice(address.lastIndexOf('@') + 1)}`), arn(`identity/${address}`)];
  const configurationSet = call.input.ConfigurationSetName;
  return [
    ...identities.map((resource) => ({ action: 'ses:SendEmail', resource, context })),
    ...(typeof configurationSet === 'string'
      ? [{ action: 'ses:SendEmail', resource: arn(`configuration-set/${aws.deployed(configurationSet)}`), context }]
      : []),
  ];
};

/** `<service id> <command>` → the IAM requests AWS authorizes for it. */
export const AWS_REQUESTS: Record<string, Mapping> = {
  'S3 GetObjectCommand': readObject(true),
  'S3 HeadObjectCommand': readObject(false),
  'S3 PutObjectCommand': writeObject(['kms:GenerateDataKey']),
  'S3 CreateMultipartUploadCommand': writeObject(['kms:GenerateDataKey', 'kms:Decrypt']),
  'S3 UploadPartCommand': writeObject(['kms:GenerateDataKey', 'kms:Decrypt']),
  'S3 CompleteMultipartUploadCommand': writeObject(['kms:GenerateDataKey', 'kms:Decrypt']),
  'S3 AbortMultipartUploadCommand': (call, aws) => [
    { action: 's3:AbortMultipartUpload', resource: objectArn(call, aws) },
  ],
  'S3 ListObjectsCommand': listBucket,
  'S3 ListObjectsV2Command': listBucket,
  'DynamoDB GetItemCommand': item('dynamodb:GetItem', 'Key'),
  'DynamoDB GetCommand': item('dynamodb:GetItem', 'Key'),
  'DynamoDB PutItemCommand': item('dynamodb:PutItem', 'ItemKey'),
  'DynamoDB PutCommand': item('dynamodb:PutItem', 'ItemKey'),
  'DynamoDB UpdateItemCommand': item('dynamodb:UpdateItem', 'Key'),
  'DynamoDB UpdateCommand': item('dynamodb:UpdateItem', 'Key'),
  'DynamoDB DeleteItemCommand': item('dynamodb:DeleteItem', 'Key'),
  'DynamoDB DeleteCommand': item('dynamodb:DeleteItem', 'Key'),
  'DynamoDB QueryCommand': query,
  'Secrets Manager GetSecretValueCommand': onSecret('secretsmanager:GetSecretValue'),
  'Secrets Manager DescribeSecretCommand': onSecret('secretsmanager:DescribeSecret'),
  'Secrets Manager CreateSecretCommand': createSecret,
  'Secrets Manager RestoreSecretCommand': onSecret('secretsmanager:RestoreSecret'),
  'Secrets Manager TagResourceCommand': onSecret('secretsmanager:TagResource'),
  'SQS SendMessageCommand': sendMessage,
  'SQS SendMessageBatchCommand': sendMessage,
  'SESv2 SendEmailCommand': sendEmail,
};

export function iamRequestsFor(call: SdkCall, aws: DeployedResources): IamRequest[] {
  const mapping = AWS_REQUESTS[`${call.service} ${call.command}`];
  if (!mapping)
    throw new UnmappedCallError(
      `${call.fn}: ${call.service} ${call.command} has no row in test/iam/aws-requests.ts (what IAM action and ` +
        'resource does AWS authorize it as?)',
    );
  return mapping(call, aws);
}
