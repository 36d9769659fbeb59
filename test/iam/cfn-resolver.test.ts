/** The template resolver (cfn-resolver.ts) on a hand-made template: intrinsics, names per type, and refusals. */
import { describe, expect, it } from 'vitest';
import { CfnResolver, type CfnTemplate, UnresolvableError } from './cfn-resolver.ts';
import { deployedIam } from './deployed-iam.ts';

const template: CfnTemplate = {
  Resources: {
    Bucket: { Type: 'AWS::S3::Bucket', Properties: {} },
    Named: { Type: 'AWS::SQS::Queue', Properties: { QueueName: 'jobs' } },
    Key: { Type: 'AWS::KMS::Key', Properties: { KeyPolicy: { Statement: [] } } },
    Alarm: { Type: 'AWS::CloudWatch::Alarm', Properties: {} },
    Odd: { Type: 'AWS::Some::Thing', Properties: {} },
    Role: {
      Type: 'AWS::IAM::Role',
      Properties: {
        AssumeRolePolicyDocument: { Statement: [] },
        ManagedPolicyArns: [
          {
            'Fn::Join': [
              '',
              ['arn:', { Ref: 'AWS::Partition' }, ':iam::aws:policy/service-role/AWSLambdaBasicExecutionRole'],
            ],
          },
        ],
      },
    },
  },
};
const r = new CfnResolver(template);

describe('CfnResolver', () => {
  it('resolves pseudo parameters, Ref, GetAtt, Join, Sub, Select and Split', () => {
    expect(r.resolve({ 'Fn::Join': ['', [{ 'Fn::GetAtt': ['Bucket', 'Arn'] }, '/p/*']] })).toMatch(
      /^arn:aws:s3:::pulse-bucket-[a-z0-9]{12}\/p\/\*$/,
    );
    expect(r.resolve({ Ref: 'Named' })).toBe('https://sqs.us-east-1.amazonaws.com/123456789012/jobs');
    expect(r.resolve({ 'Fn::GetAtt': 'Named.Arn' })).toBe('arn:aws:sqs:us-east-1:123456789012:jobs');
    expect(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: CloudFormation's Fn::Sub syntax
      r.resolve({ 'Fn::Sub': 'arn:${AWS::Partition}:x:${AWS::Region}:${AWS::AccountId}:${Named.QueueName}' }),
    ).toBe('arn:aws:x:us-east-1:123456789012:jobs');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: CloudFormation's Fn::Sub syntax
    const literal = { 'Fn::Sub': ['${A}-${!Literal}', { A: { Ref: 'AWS::StackName' } }] };
    // biome-ignore lint/suspicious/noTemplateCurlyInString: `${!…}` is Fn::Sub's escaped literal
    expect(r.resolve(literal)).toBe('Pulse-${Literal}');
    expect(r.resolve({ 'Fn::Select': [1, { 'Fn::Split': ['/', 'a/b/c'] }] })).toBe('b');
    expect(r.arn('Key')).toMatch(/^arn:aws:kms:us-east-1:123456789012:key\/[0-9a-f-]{36}$/);
    // CloudFormation names an alarm `<stack>-<logical id>-<random>`: what a SourceArn condition on `Pulse-*` relies on.
    expect(r.arn('Alarm')).toMatch(/^arn:aws:cloudwatch:us-east-1:123456789012:alarm:Pulse-Alarm-[A-Z0-9]{12}$/);
  });

  it('refuses what it has no rule for, naming it', () => {
    expect(() => r.resolve({ Ref: 'Odd' })).toThrow(UnresolvableError);
    expect(() => r.resolve({ 'Fn::GetAtt': ['Bucket', 'WebsiteURL'] })).toThrow(/Bucket\.WebsiteURL/);
    expect(() => r.resolve({ 'Fn::If': ['c', 1, 2] })).toThrow(/Fn::If/);
    expect(() => r.resolve({ Ref: 'Missing' })).toThrow(/no resource Missing/);
  });

  it("gives a role AWSLambdaBasicExecutionRole's published document", () => {
    const iam = deployedIam(r);
    expect(iam.identityPolicies(r.arn('Role')).map((p) => p.policy.Statement)).toEqual([
      [
        {
          Effect: 'Allow',
          Action: ['logs:CreateLogGroup', 'logs:CreateLogStream', 'logs:PutLogEvents'],
          Resource: '*',
        },
      ],
    ]);
  });
});
