/**
 * The usage alerts' link to the full digest report, judged by IAM's rules (simulate.ts) on two synthesized stacks:
 * with a public base URL (`archive.publicBaseUrl`, where a reader can open a report) the function may look whether a
 * digest's browser copy is there (HEAD is s3:GetObject; a missing key is told apart by listing it) and read nothing
 * else of the digests; without one it may not even look, as no link could be opened.
 */
import { describe, expect, it } from 'vitest';
import { browserCopyKey, digestArchivePrefix } from '../../src/core/digest-report.ts';
import { productionConfig, synthPulse } from '../infra/synth-pulse.ts';
import { CfnResolver, type CfnTemplate, TEST_TARGET } from './cfn-resolver.ts';
import { type DeployedIam, deployedIam } from './deployed-iam.ts';
import { type IamRequest, simulate } from './simulate.ts';

const iamOf = (config: ReturnType<typeof productionConfig>) => {
  const synth = synthPulse({ props: { config } });
  const template = synth.template.toJSON() as CfnTemplate;
  const iam = deployedIam(new CfnResolver(template, { ...TEST_TARGET, stackName: synth.stack.stackName }));
  /** Every function's PULSE_REPORT_DIGESTS, parsed, by the function's logical id. */
  const reportDigests = Object.entries(template.Resources)
    .filter(([, r]) => r.Type === 'AWS::Lambda::Function')
    .map(([id, r]) => [id, (r.Properties as Env).Environment?.Variables?.PULSE_REPORT_DIGESTS] as const)
    .flatMap(([id, v]) => (typeof v === 'string' ? [[id, JSON.parse(v)]] : []));
  return { iam, reportDigests };
};
type Env = { Environment?: { Variables?: Record<string, unknown> } };
const plainConfig = productionConfig();
const publicConfig = {
  ...plainConfig,
  archive: { ...plainConfig.archive!, publicBaseUrl: 'https://archive.example.com' },
};
const prefix = plainConfig.archive!.prefix;
const folder = digestArchivePrefix(prefix, plainConfig.digests[0]!.id, '2026-W47');
const report = browserCopyKey(folder);

async function decision(iam: DeployedIam, fn: string, request: (bucketArn: string) => IamRequest) {
  const f = iam.functions.get(fn)!;
  const [, bucket] = [...iam.buckets].find(([, b]) => b.keyArn !== undefined)!;
  return (await simulate(iam, { arn: f.principal, roleArn: f.roleArn }, request(bucket.arn))).decision;
}
const head = (key: string) => (arn: string) => ({ action: 's3:GetObject', resource: `${arn}/${key}` });
const listKey = (key: string) => (arn: string) => ({
  action: 's3:ListBucket',
  resource: arn,
  context: { 's3:prefix': key },
});

describe('usage alerts: looking up the digest report they link to', () => {
  const { iam: withLinks, reportDigests } = iamOf(publicConfig);
  const { iam: plain, reportDigests: none } = iamOf(plainConfig);

  it('names the digests and their products to the usage alerts alone, without their recipients', () => {
    expect(reportDigests).toEqual([
      [expect.stringMatching(/^UsageAlerts/), plainConfig.digests.map((d) => ({ id: d.id, productIds: d.productIds }))],
    ]);
    expect(none).toEqual([]);
  });

  it('with a public base URL, may look up a browser copy (HEAD, and the listing that tells a missing key)', async () => {
    expect(await decision(withLinks, 'usage-alerts', head(report))).toBe('Allowed');
    expect(await decision(withLinks, 'usage-alerts', listKey(report))).toBe('Allowed');
  });

  it('reads nothing else of the digests: the email, a chart, the raw responses, the folder listed', async () => {
    for (const name of ['email.html', 'chart-1.png', 'responses.json'])
      expect(await decision(withLinks, 'usage-alerts', head(`${folder}${name}`)), name).not.toBe('Allowed');
    expect(await decision(withLinks, 'usage-alerts', listKey(folder))).not.toBe('Allowed');
  });

  it('without a public base URL may not look: no link could be opened', async () => {
    expect(await decision(plain, 'usage-alerts', head(report))).not.toBe('Allowed');
    expect(await decision(plain, 'usage-alerts', listKey(report))).not.toBe('Allowed');
  });
});
