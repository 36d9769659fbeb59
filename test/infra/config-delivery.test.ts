/**
 * Config delivery (docs/aws.md "Config delivery"): each function's part of the config travels in its bundle, not
 * in its environment, so a config with many recipients deploys (Lambda caps the environment at 4 KB) and a function
 * holds only the sections its job reads.
 */
import { readFileSync } from 'node:fs';
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { FUNCTION_CONFIG_SECTIONS, type PulseFunctionName } from '../../lib/function-config.ts';
import { parseConfig } from '../../src/config/load.ts';
import { PRODUCTION_EXAMPLE, synthPulse } from './synth-pulse.ts';

/** The example production config with 20 digests of 50 recipients each (1,000 addresses). */
function manyRecipients() {
  const raw = JSON.parse(readFileSync(PRODUCTION_EXAMPLE, 'utf8'));
  const digest = raw.digests[0];
  raw.digests = Array.from({ length: 20 }, (_, d) => ({
    ...digest,
    id: `digest-${d}`,
    recipients: Array.from({ length: 50 }, (_, r) => ({
      address: `recipient-${d}-${r}@example.com`,
      name: `Recipient ${d}/${r}`,
      timeZone: 'Europe/Berlin',
    })),
  }));
  return parseConfig(raw, '20×50');
}

const config = manyRecipients();
const { stack, template, findings } = synthPulse({ props: { config } });

// biome-ignore lint/suspicious/noExplicitAny: CloudFormation properties are untyped JSON.
const environmentOf = (job: string): Record<string, any> => {
  const fns = template.findResources('AWS::Lambda::Function', {
    Properties: { Environment: { Variables: Match.objectLike({ PULSE_JOB: job }) } },
  });
  expect(Object.keys(fns)).toHaveLength(1);
  return Object.values(fns)[0]!.Properties.Environment.Variables;
};
const bundledConfigOf: Record<PulseFunctionName, () => string | undefined> = {
  'archive-plan': () => stack.archive?.plan.bundledConfig,
  'archive-copy': () => stack.archive?.copier.bundledConfig,
  'archive-verify': () => stack.archive?.verify.bundledConfig,
  digest: () => stack.digest?.bundledConfig,
  'license-alerts': () => stack.licenseAlerts?.bundledConfig,
  'license-report': () => stack.licenseReport?.bundledConfig,
  'license-sync': () => stack.licenseSync?.bundledConfig,
  'usage-alerts': () => stack.usageAlerts?.bundledConfig,
  'mail-events': () => stack.mailEvents?.worker.bundledConfig,
};
const jobs = Object.keys(FUNCTION_CONFIG_SECTIONS) as PulseFunctionName[];
const recipientAddress = /recipient-\d+-\d+@example\.com|ceo@|cpo@|growth@|subscriptions@|license-ops@|oncall@/;

describe('config delivery', () => {
  it('synthesizes a config of 20 digests × 50 recipients, cdk-nag clean', () => {
    expect(stack.digest).toBeDefined();
    expect(findings).toEqual([]);
  });

  it.each(jobs)('keeps the environment of %s under 1 KB, with no config in it', (job) => {
    const env = environmentOf(job);
    const size = Buffer.byteLength(JSON.stringify(env));
    expect(size).toBeLessThan(1024);
    expect(Object.keys(env)).not.toContain('PULSE_CONFIG_JSON');
    expect(JSON.stringify(env)).not.toMatch(recipientAddress);
  });

  it.each(jobs)('gives %s only the sections its job reads, valid as a config', (job) => {
    const text = bundledConfigOf[job]();
    expect(text).toBeDefined();
    const part = JSON.parse(text!);
    // Every section its job reads that the config has (`notices` is optional: this config has none).
    const present = FUNCTION_CONFIG_SECTIONS[job].filter((section) => config[section] !== undefined);
    expect(Object.keys(part).sort()).toEqual([...present].sort());
    expect(part.service.credentials).toEqual({ source: 'secretsManager', secretId: 'pulse/reporting-service' });
    // Against the config as it reads back from JSON: a zod default skips its transform, so a defaulted list
    // (licenses.stages.daysAfter) comes back sorted; the jobs do not depend on its order.
    const [parsed, whole] = [parseConfig(part, job), parseConfig(JSON.parse(JSON.stringify(config)))];
    for (const section of present) if (section !== 'service') expect(parsed[section]).toEqual(whole[section]);
  });

  it('gives the copier, the plan step, the chain check and the sync no recipient address', () => {
    for (const job of ['archive-copy', 'archive-plan', 'archive-verify', 'license-sync'] as const)
      expect(bundledConfigOf[job]()).not.toMatch(recipientAddress);
  });

  it('gives the license functions no digest recipient and the digest no license recipient', () => {
    expect(bundledConfigOf.digest()).toContain('recipient-19-49@example.com');
    expect(bundledConfigOf.digest()).not.toContain('license-ops@');
    for (const job of ['license-alerts', 'license-report'] as const) {
      expect(bundledConfigOf[job]()).toContain('license-ops@');
      expect(bundledConfigOf[job]()).not.toContain('recipient-');
    }
  });

  it("gives the usage alerts their rules' recipients and no other job's; no function but mail-events the rules", () => {
    const part = bundledConfigOf['usage-alerts']()!;
    expect(part).toContain('analytics-owner@');
    expect(part).not.toMatch(/recipient-|license-ops@|growth@|subscriptions@/);
    // The archive's prefix: where each run's evidence is kept (the bucket comes from the environment).
    expect(JSON.parse(part).archive.prefix).toBe(config.archive!.prefix);
    // mail-events names a bounced usage alerts email and tells its rule's owner (src/mail-events/delivery-of.ts).
    for (const job of jobs.filter((j) => j !== 'usage-alerts' && j !== 'mail-events'))
      expect(Object.keys(JSON.parse(bundledConfigOf[job]()!)), job).not.toContain('usageAlerts');
    expect(Object.keys(JSON.parse(bundledConfigOf['mail-events']()!))).toContain('usageAlerts');
  });
});
