/**
 * Who may do what once the stack is deployed, read from its synthesized template (resolved by cfn-resolver.ts): for
 * each Pulse function its execution role, the session its calls are signed with, and the role's identity policies
 * (AWS::IAM::Policy resources attached to it, inline policies, managed policies: AWSLambdaBasicExecutionRole by its
 * published document); and every resource policy AWS would weigh: bucket, topic, queue and key policies, Lambda
 * permissions, role trust policies, secret and table resource policies. Plus what the call mapping needs to know of
 * the resources (aws-requests.ts): each bucket's KMS key, each table's partition key, each queue's ARN.
 */
import { type CfnResolver, UnresolvableError } from './cfn-resolver.ts';

export interface PolicyStatement {
  Sid?: string;
  Effect: 'Allow' | 'Deny';
  [element: string]: unknown;
}

export interface PolicyDocument {
  Version: string;
  Statement: PolicyStatement[];
}

export interface NamedPolicy {
  name: string;
  policy: PolicyDocument;
}

/** The managed policies a Pulse role may carry, by ARN (partition `aws`), as AWS publishes them. */
export const MANAGED_POLICIES: Record<string, PolicyDocument> = {
  // https://docs.aws.amazon.com/aws-managed-policy/latest/reference/AWSLambdaBasicExecutionRole.html
  'arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole': {
    Version: '2012-10-17',
    Statement: [
      {
        Effect: 'Allow',
        Action: ['logs:CreateLogGroup', 'logs:CreateLogStream', 'logs:PutLogEvents'],
        Resource: '*',
      },
    ],
  },
};

export interface DeployedFunction {
  /** PULSE_JOB: the handler's folder name (digest, archive, archive-copy, …). */
  job: string;
  logicalId: string;
  name: string;
  arn: string;
  roleArn: string;
  /** The role session Lambda signs the function's calls with (session name = function name). */
  principal: string;
  logGroupName: string;
  /** The on-failure destination of its async invocations (a queue ARN), if any. */
  onFailure: string | undefined;
  /** The queues its event source mappings read (ARNs). */
  eventSources: string[];
  /** Its environment as the template has it (references unresolved). */
  environment: Record<string, unknown>;
}

export interface DeployedIam {
  resolver: CfnResolver;
  /** By PULSE_JOB. */
  functions: Map<string, DeployedFunction>;
  identityPolicies(roleArn: string): NamedPolicy[];
  /** The resource policy AWS weighs for a request on `resourceArn` (an object's is its bucket's), if any. */
  resourcePolicy(resourceArn: string): PolicyDocument | undefined;
  /** Bucket name → its ARN and the KMS key of its default encryption. */
  buckets: Map<string, { arn: string; keyArn: string | undefined }>;
  /** Table name → its ARN and partition key attribute. */
  tables: Map<string, { arn: string; partitionKey: string }>;
  /** Queue URL → queue ARN. */
  queues: Map<string, string>;
}

type Props = Record<string, unknown>;
const asArray = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

export function deployedIam(resolver: CfnResolver): DeployedIam {
  const { account, partition, region } = resolver.target;
  const props = (id: string) => (resolver.resource(id).Properties ?? {}) as Props;
  const document = (value: unknown): PolicyDocument => {
    const doc = resolver.resolve(value) as { Version?: string; Statement: PolicyStatement | PolicyStatement[] };
    return { Version: doc.Version ?? '2012-10-17', Statement: asArray(doc.Statement) };
  };

  const buckets = new Map<string, { arn: string; keyArn: string | undefined }>();
  for (const [id] of resolver.resourcesOfType('AWS::S3::Bucket')) {
    const encryption = props(id).BucketEncryption as
      | { ServerSideEncryptionConfiguration: { ServerSideEncryptionByDefault?: Props }[] }
      | undefined;
    const byDefault = encryption?.ServerSideEncryptionConfiguration[0]?.ServerSideEncryptionByDefault;
    const key = byDefault?.SSEAlgorithm === 'aws:kms' ? byDefault.KMSMasterKeyID : undefined;
    let keyArn = key === undefined ? undefined : resolver.string(key);
    if (keyArn !== undefined && !keyArn.startsWith('arn:'))
      keyArn = `arn:${partition}:kms:${region}:${account}:key/${keyArn}`;
    buckets.set(resolver.ref(id), { arn: resolver.arn(id), keyArn });
  }
  const tables = new Map<string, { arn: string; partitionKey: string }>();
  for (const [id] of resolver.resourcesOfType('AWS::DynamoDB::Table')) {
    const schema = props(id).KeySchema as { AttributeName: string; KeyType: string }[];
    const hash = schema.find((k) => k.KeyType === 'HASH');
    if (!hash) throw new UnresolvableError(`table ${id} has no HASH key`);
    tables.set(resolver.ref(id), { arn: resolver.arn(id), partitionKey: hash.AttributeName });
  }
  const queues = new Map<string, string>();
  for (const [id] of resolver.resourcesOfType('AWS::SQS::Queue')) queues.set(resolver.ref(id), resolver.arn(id));

  // Identity policies, by role ARN.
  const roleArnOfRef = new Map<string, string>(); // role name (its Ref) → ARN
  const identity = new Map<string, NamedPolicy[]>();
  for (const [id] of resolver.resourcesOfType('AWS::IAM::Role')) {
    const arn = resolver.arn(id);
    roleArnOfRef.set(resolver.ref(id), arn);
    const policies: NamedPolicy[] = [];
    for (const inline of asArray(props(id).Policies as Props[] | undefined))
      policies.push({ name: resolver.string(inline.PolicyName), policy: document(inline.PolicyDocument) });
    for (const managed of asArray(props(id).ManagedPolicyArns)) {
      const managedArn = resolver.string(managed);
      const published = MANAGED_POLICIES[managedArn.replace(/^arn:[^:]+:/, 'arn:aws:')];
      const own = resolver
        .resourcesOfType('AWS::IAM::ManagedPolicy')
        .find(([mid]) => `arn:${partition}:iam::${account}:policy/${resolver.ref(mid)}` === managedArn);
      if (published) policies.push({ name: managedArn, policy: published });
      else if (own) policies.push({ name: managedArn, policy: document(props(own[0]).PolicyDocument) });
      else throw new UnresolvableError(`role ${id}: no document for the managed policy ${managedArn}`);
    }
    identity.set(arn, policies);
  }
  for (const type of ['AWS::IAM::Policy', 'AWS::IAM::ManagedPolicy'])
    for (const [id] of resolver.resourcesOfType(type)) {
      if (props(id).Users !== undefined || props(id).Groups !== undefined)
        throw new UnresolvableError(`${id}: policies attached to users or groups are not modelled`);
      for (const role of asArray(props(id).Roles)) {
        const arn = roleArnOfRef.get(resolver.string(role));
        if (arn === undefined) throw new UnresolvableError(`${id} is attached to a role not in the template`);
        identity.get(arn)!.push({ name: id, policy: document(props(id).PolicyDocument) });
      }
    }

  // Resource policies, by the ARN they govern.
  const resourcePolicies = new Map<string, PolicyStatement[]>();
  const addStatements = (arn: string, statements: PolicyStatement[]) =>
    resourcePolicies.set(arn, [...(resourcePolicies.get(arn) ?? []), ...statements]);
  for (const [id] of resolver.resourcesOfType('AWS::S3::BucketPolicy'))
    addStatements(
      `arn:${partition}:s3:::${resolver.string(props(id).Bucket)}`,
      document(props(id).PolicyDocument).Statement,
    );
  for (const [id] of resolver.resourcesOfType('AWS::SNS::TopicPolicy'))
    for (const topic of asArray(props(id).Topics))
      addStatements(resolver.string(topic), document(props(id).PolicyDocument).Statement);
  for (const [id] of resolver.resourcesOfType('AWS::SQS::QueuePolicy'))
    for (const url of asArray(props(id).Queues)) {
      const arn = queues.get(resolver.string(url));
      if (arn === undefined) throw new UnresolvableError(`${id}: a queue not in the template`);
      addStatements(arn, document(props(id).PolicyDocument).Statement);
    }
  for (const [id] of resolver.resourcesOfType('AWS::KMS::Key'))
    addStatements(resolver.arn(id), document(props(id).KeyPolicy).Statement);
  for (const [id] of resolver.resourcesOfType('AWS::IAM::Role'))
    addStatements(resolver.arn(id), document(props(id).AssumeRolePolicyDocument).Statement);
  for (const [id] of resolver.resourcesOfType('AWS::SecretsManager::ResourcePolicy'))
    addStatements(resolver.string(props(id).SecretId), document(props(id).ResourcePolicy).Statement);
  for (const [id] of resolver.resourcesOfType('AWS::DynamoDB::Table')) {
    const policy = (props(id).ResourcePolicy as Props | undefined)?.PolicyDocument;
    if (policy !== undefined) addStatements(resolver.arn(id), document(policy).Statement);
  }

  // Functions: by PULSE_JOB; CDK's own (bucket notifications) have none and are left out.
  const functionArnOf = (nameOrArn: string) =>
    nameOrArn.startsWith('arn:') ? nameOrArn : `arn:${partition}:lambda:${region}:${account}:function:${nameOrArn}`;
  for (const [id] of resolver.resourcesOfType('AWS::Lambda::Permission')) {
    const p = props(id);
    addStatements(functionArnOf(resolver.string(p.FunctionName)), [lambdaPermissionStatement(id, resolver, p)]);
  }
  const functions = new Map<string, DeployedFunction>();
  for (const [id, resource] of resolver.resourcesOfType('AWS::Lambda::Function')) {
    const p = resource.Properties ?? {};
    const environment = (p.Environment as { Variables?: Props } | undefined)?.Variables ?? {};
    const job = environment.PULSE_JOB;
    if (typeof job !== 'string') continue;
    const name = resolver.ref(id);
    const roleArn = resolver.string(p.Role);
    const roleName = roleArn.slice(roleArn.lastIndexOf('/') + 1);
    const logGroup = (p.LoggingConfig as Props | undefined)?.LogGroup;
    const same = (ref: unknown) => {
      const value = resolver.string(ref);
      return value === name || value === resolver.arn(id);
    };
    const invokeConfig = resolver
      .resourcesOfType('AWS::Lambda::EventInvokeConfig')
      .find(([cid]) => same(props(cid).FunctionName));
    const onFailure = invokeConfig
      ? ((props(invokeConfig[0]).DestinationConfig as { OnFailure?: { Destination: unknown } } | undefined)?.OnFailure
          ?.Destination as unknown)
      : undefined;
    functions.set(job, {
      job,
      logicalId: id,
      name,
      arn: resolver.arn(id),
      roleArn,
      principal: `arn:${partition}:sts::${account}:assumed-role/${roleName}/${name}`,
      logGroupName: logGroup === undefined ? `/aws/lambda/${name}` : resolver.string(logGroup),
      onFailure: onFailure === undefined ? undefined : resolver.string(onFailure),
      eventSources: resolver
        .resourcesOfType('AWS::Lambda::EventSourceMapping')
        .filter(([mid]) => same(props(mid).FunctionName))
        .map(([mid]) => resolver.string(props(mid).EventSourceArn)),
      environment,
    });
  }

  const governing = (resourceArn: string): string => {
    if (resourceArn.startsWith(`arn:${partition}:s3:::`))
      return resourceArn.replace(/^(arn:[^:]+:s3:::[^/]+)\/.*$/, '$1');
    const lambda = /^(arn:[^:]+:lambda:[^:]+:[^:]+:function:[^:]+)(:.+)?$/.exec(resourceArn);
    return lambda ? lambda[1]! : resourceArn;
  };
  return {
    resolver,
    functions,
    identityPolicies: (roleArn) => identity.get(roleArn) ?? [],
    resourcePolicy(resourceArn) {
      const statements = resourcePolicies.get(governing(resourceArn));
      return statements ? { Version: '2012-10-17', Statement: statements } : undefined;
    },
    buckets,
    tables,
    queues,
  };
}

/** An AWS::Lambda::Permission as the statement Lambda adds to the function's resource policy. */
function lambdaPermissionStatement(id: string, resolver: CfnResolver, p: Props): PolicyStatement {
  const known = new Set(['Action', 'FunctionName', 'Principal', 'SourceAccount', 'SourceArn', 'PrincipalOrgID']);
  const unknown = Object.keys(p).filter((k) => !known.has(k));
  if (unknown.length > 0) throw new UnresolvableError(`Lambda permission ${id}: ${unknown.join(', ')} not modelled`);
  const principal = resolver.string(p.Principal);
  const condition: Record<string, Record<string, string>> = {};
  if (p.SourceAccount !== undefined) condition.StringEquals = { 'aws:SourceAccount': resolver.string(p.SourceAccount) };
  if (p.SourceArn !== undefined) condition.ArnLike = { 'aws:SourceArn': resolver.string(p.SourceArn) };
  if (p.PrincipalOrgID !== undefined)
    condition.StringEquals = { ...condition.StringEquals, 'aws:PrincipalOrgID': resolver.string(p.PrincipalOrgID) };
  return {
    Sid: id,
    Effect: 'Allow',
    Principal: principal.endsWith('.amazonaws.com') ? { Service: principal } : { AWS: principal },
    Action: resolver.string(p.Action),
    Resource: resolver.string(p.FunctionName).startsWith('arn:')
      ? resolver.string(p.FunctionName)
      : `arn:${resolver.target.partition}:lambda:${resolver.target.region}:${resolver.target.account}:function:${resolver.string(p.FunctionName)}`,
    ...(Object.keys(condition).length > 0 ? { Condition: condition } : {}),
  };
}
