/**
 * A synthesized CloudFormation template's values as they would be once deployed, so its IAM policies can be
 * evaluated like AWS evaluates them: intrinsics (Ref, Fn::GetAtt, Fn::Join, Fn::Sub, Fn::Select, Fn::Split) and the
 * pseudo parameters resolved for a fixed account, region and partition, and each resource given the physical name
 * CloudFormation would (its own name property, else `<stack>-<logical id>-<suffix>`), from which its Ref and
 * attributes follow per resource type. Anything it does not know how to resolve throws, naming it: a template that
 * grows a new kind of reference must not be evaluated on a guess.
 */
import { createHash } from 'node:crypto';

export interface DeployTarget {
  account: string;
  region: string;
  partition: string;
  urlSuffix: string;
  stackName: string;
}

/** Where the tests deploy: the account and region the stubs' ARNs use (test/functions/bundled/bundled-stack.ts). */
export const TEST_TARGET: DeployTarget = {
  account: '123456789012',
  region: 'us-east-1',
  partition: 'aws',
  urlSuffix: 'amazonaws.com',
  stackName: 'Pulse',
};

export interface CfnResource {
  Type: string;
  Properties?: Record<string, unknown>;
}

export interface CfnTemplate {
  Resources: Record<string, CfnResource>;
}

export class UnresolvableError extends Error {
  override name = 'UnresolvableError';
}

/** The property that holds a resource type's own name, when the template sets one. */
const NAME_PROPERTY: Record<string, string> = {
  'AWS::S3::Bucket': 'BucketName',
  'AWS::DynamoDB::Table': 'TableName',
  'AWS::SecretsManager::Secret': 'Name',
  'AWS::SQS::Queue': 'QueueName',
  'AWS::SNS::Topic': 'TopicName',
  'AWS::Lambda::Function': 'FunctionName',
  'AWS::IAM::Role': 'RoleName',
  'AWS::IAM::Policy': 'PolicyName',
  'AWS::Logs::LogGroup': 'LogGroupName',
  'AWS::Events::Rule': 'Name',
  'AWS::Scheduler::Schedule': 'Name',
  'AWS::CloudWatch::Alarm': 'AlarmName',
  'AWS::SES::ConfigurationSet': 'Name',
};

/**
 * Custom resources of the stack whose attributes are known from what their handler returns (a new custom resource
 * type needs a row here before its attributes can be resolved).
 */
const CUSTOM_ATTRIBUTES: Record<
  string,
  Record<string, (r: CfnResolver, logicalId: string, props: Record<string, unknown>) => string>
> = {
  // functions/secret-setup: the secret it created or adopted, named SecretName.
  'Custom::PulseReportingServiceSecret': {
    Arn: (r, id, props) => {
      const { partition, region, account } = r.target;
      return `arn:${partition}:secretsmanager:${region}:${account}:secret:${r.string(props.SecretName)}-${suffix(id, 6, SECRET_SUFFIX)}`;
    },
  },
};

const SECRET_SUFFIX = 'abcdefghijklmnopqrstuvwxyzABCDEF';

/** A stable stand-in for the random part CloudFormation adds to names and ids. */
const suffix = (logicalId: string, length: number, alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789') => {
  const bytes = createHash('sha256').update(logicalId).digest();
  return Array.from(bytes.subarray(0, length), (b) => alphabet[b % alphabet.length]).join('');
};

export class CfnResolver {
  readonly template: CfnTemplate;
  readonly target: DeployTarget;

  constructor(template: CfnTemplate, target: DeployTarget = TEST_TARGET) {
    this.template = template;
    this.target = target;
  }

  resource(logicalId: string): CfnResource {
    const resource = this.template.Resources[logicalId];
    if (!resource) throw new UnresolvableError(`no resource ${logicalId} in the template`);
    return resource;
  }

  /** Every resource of a type, with its logical id. */
  resourcesOfType(type: string): [string, CfnResource][] {
    return Object.entries(this.template.Resources).filter(([, r]) => r.Type === type);
  }

  /** The physical name (for a KMS key: its id) CloudFormation gives the resource. */
  physicalName(logicalId: string): string {
    const { Type, Properties } = this.resource(logicalId);
    if (Type === 'AWS::KMS::Key') {
      const hex = createHash('sha256').update(logicalId).digest('hex');
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
    }
    const property = NAME_PROPERTY[Type];
    if (property === undefined) throw new UnresolvableError(`no physical name rule for ${Type} (${logicalId})`);
    const own = Properties?.[property];
    if (own !== undefined) return this.string(own);
    const generated = `${this.target.stackName}-${logicalId}-${suffix(logicalId, 12)}`;
    return Type === 'AWS::S3::Bucket' ? generated.toLowerCase() : generated;
  }

  /** `{ Ref: logicalId }` (or a pseudo parameter). */
  ref(name: string): string {
    const { account, region, partition, urlSuffix, stackName } = this.target;
    const pseudo: Record<string, string> = {
      'AWS::AccountId': account,
      'AWS::Region': region,
      'AWS::Partition': partition,
      'AWS::URLSuffix': urlSuffix,
      'AWS::StackName': stackName,
      'AWS::StackId': `arn:${partition}:cloudformation:${region}:${account}:stack/${stackName}/${suffix(stackName, 8)}`,
    };
    if (pseudo[name] !== undefined) return pseudo[name];
    const { Type } = this.resource(name);
    switch (Type) {
      case 'AWS::SecretsManager::Secret':
      case 'AWS::SNS::Topic':
        return this.arn(name);
      case 'AWS::SQS::Queue':
        return `https://sqs.${region}.${urlSuffix}/${account}/${this.physicalName(name)}`;
      default:
        return this.physicalName(name);
    }
  }

  /** The resource's ARN, as `Fn::GetAtt [id, Arn]` (or Ref, for the types whose Ref is the ARN) gives it. */
  arn(logicalId: string): string {
    const { Type, Properties } = this.resource(logicalId);
    const { account, region, partition } = this.target;
    const name = this.physicalName(logicalId);
    const regional = (service: string, resource: string) =>
      `arn:${partition}:${service}:${region}:${account}:${resource}`;
    switch (Type) {
      case 'AWS::S3::Bucket':
        return `arn:${partition}:s3:::${name}`;
      case 'AWS::DynamoDB::Table':
        return regional('dynamodb', `table/${name}`);
      case 'AWS::SecretsManager::Secret':
        return regional('secretsmanager', `secret:${name}-${suffix(logicalId, 6, SECRET_SUFFIX)}`);
      case 'AWS::SQS::Queue':
        return regional('sqs', name);
      case 'AWS::SNS::Topic':
        return regional('sns', name);
      case 'AWS::Lambda::Function':
        return regional('lambda', `function:${name}`);
      case 'AWS::IAM::Role':
        return `arn:${partition}:iam::${account}:role/${name}`;
      case 'AWS::Logs::LogGroup':
        return regional('logs', `log-group:${name}:*`);
      case 'AWS::Events::Rule':
        return regional('events', `rule/${name}`);
      case 'AWS::Scheduler::Schedule':
        return regional('scheduler', `schedule/${this.string(Properties?.GroupName ?? 'default')}/${name}`);
      case 'AWS::CloudWatch::Alarm':
        return regional('cloudwatch', `alarm:${name}`);
      case 'AWS::KMS::Key':
        return regional('kms', `key/${name}`);
      case 'AWS::SES::ConfigurationSet':
        return regional('ses', `configuration-set/${name}`);
      default:
        throw new UnresolvableError(`no ARN rule for ${Type} (${logicalId})`);
    }
  }

  getAtt(logicalId: string, attribute: string): string {
    const { Type, Properties } = this.resource(logicalId);
    const custom = CUSTOM_ATTRIBUTES[Type]?.[attribute];
    if (custom) return custom(this, logicalId, Properties ?? {});
    const name = this.physicalName(logicalId);
    const attributes: Record<string, () => string> = {
      Arn: () => this.arn(logicalId),
      TopicArn: () => this.arn(logicalId),
      TopicName: () => name,
      QueueName: () => name,
      QueueUrl: () => this.ref(logicalId),
      KeyId: () => name,
      RoleId: () => `AROA${suffix(logicalId, 17)}`,
    };
    const get = attributes[attribute];
    if (!get) throw new UnresolvableError(`no rule for Fn::GetAtt ${logicalId}.${attribute} (${Type})`);
    return get();
  }

  /** A value with every intrinsic resolved (objects and arrays deeply). */
  resolve(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((v) => this.resolve(v));
    if (value === null || typeof value !== 'object') return value;
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 1) {
      const [[fn, arg]] = entries as [[string, unknown]];
      if (fn === 'Ref' || fn.startsWith('Fn::')) return this.intrinsic(fn, arg);
    }
    return Object.fromEntries(entries.map(([k, v]) => [k, this.resolve(v)]));
  }

  /** A value that must resolve to a string. */
  string(value: unknown): string {
    const resolved = this.resolve(value);
    if (typeof resolved !== 'string')
      throw new UnresolvableError(`expected a string, got ${JSON.stringify(resolved)} from ${JSON.stringify(value)}`);
    return resolved;
  }

  private intrinsic(fn: string, arg: unknown): unknown {
    switch (fn) {
      case 'Ref':
        return this.ref(arg as string);
      case 'Fn::GetAtt': {
        const [id, attribute] = typeof arg === 'string' ? arg.split(/\.(.*)/s) : (arg as [string, string]);
        return this.getAtt(id!, this.string(attribute));
      }
      case 'Fn::Join': {
        const [separator, parts] = arg as [string, unknown[]];
        return (this.resolve(parts) as unknown[]).map((p) => this.asString(p, fn)).join(separator);
      }
      case 'Fn::Select': {
        const [index, list] = arg as [unknown, unknown];
        const items = this.resolve(list) as unknown[];
        const item = items[Number(this.resolve(index))];
        if (item === undefined) throw new UnresolvableError(`Fn::Select out of range: ${JSON.stringify(arg)}`);
        return item;
      }
      case 'Fn::Split': {
        const [separator, source] = arg as [string, unknown];
        return this.string(source).split(separator);
      }
      case 'Fn::Sub': {
        const [text, vars] = typeof arg === 'string' ? [arg, {}] : (arg as [string, Record<string, unknown>]);
        return text.replace(/\$\{([^}]+)\}/g, (_whole, name: string) => {
          if (name.startsWith('!')) return `\${${name.slice(1)}}`;
          if (name in vars) return this.string(vars[name]);
          const [id, attribute] = name.split(/\.(.*)/s);
          return attribute ? this.getAtt(id!, attribute) : this.ref(id!);
        });
      }
      default:
        throw new UnresolvableError(`no rule for ${fn}: ${JSON.stringify(arg)}`);
    }
  }

  private asString(value: unknown, where: string): string {
    if (typeof value === 'string' || typeof value === 'number') return String(value);
    throw new UnresolvableError(`${where}: a part did not resolve to a string: ${JSON.stringify(value)}`);
  }
}
