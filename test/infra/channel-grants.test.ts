/**
 * Channel secrets in the stack (lib/stacks/channel-grants.ts): each posting function may read the secrets of the
 * channels its job posts to, by name or ARN, and nothing else; an env-sourced channel gets no grant and a synth
 * warning; a secret id that would make the grant a wildcard is refused; the functions' bundles carry the channels.
 * The IAM proof of the same stack is test/iam/channel-secrets.test.ts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Annotations, Match, type Template } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import { loadDeployConfig } from '../../lib/deploy-config.ts';
import {
  CHANNEL_POSTERS,
  channelIdsPostedBy,
  channelSecretIds,
  UngrantableSecretIdError,
} from '../../lib/stacks/channel-grants.ts';
import { ConfigError, parseConfig } from '../../src/config/load.ts';
import { CHANNEL_SECRETS, channelsConfig, POSTS_TO, secretIdsPostedBy } from './channels-config.ts';
import { productionConfig, synthPulse } from './synth-pulse.ts';

// biome-ignore lint/suspicious/noExplicitAny: CloudFormation properties are untyped JSON.
type Statement = Record<string, any>;
function statementsOf(template: Template, job: string): Statement[] {
  const fns = template.findResources('AWS::Lambda::Function', {
    Properties: { Environment: { Variables: Match.objectLike({ PULSE_JOB: job }) } },
  });
  expect(Object.keys(fns)).toHaveLength(1);
  const role = Object.values(fns)[0]!.Properties.Role['Fn::GetAtt'][0];
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((p) => p.Properties.Roles.some((r: { Ref: string }) => r.Ref === role))
    .flatMap((p) => p.Properties.PolicyDocument.Statement);
}

/** A resource as the template has it, with the stack's pseudo parameters named: `arn:<Partition>:…`. */
const text = (resource: unknown): string =>
  typeof resource === 'string'
    ? resource
    : (resource as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1]
        .map((p) => (typeof p === 'string' ? p : `<${(p as { Ref: string }).Ref}>`))
        .join('');
const BY_NAME = 'arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:';

/** The channel secrets a function's role may read: the resources of GetSecretValue besides the stack's own secret. */
function channelSecretsOf(template: Template, job: string): string[] {
  return statementsOf(template, job)
    .filter((s) => s.Action === 'secretsmanager:GetSecretValue')
    .flatMap((s) => (Array.isArray(s.Resource) ? s.Resource : [s.Resource]))
    .map(text)
    .sort();
}

describe('which channels each function posts to', () => {
  const config = channelsConfig();
  it.each(CHANNEL_POSTERS)(
    '%s: its sections’ channels and the notice channels (archive, usage alerts: their own only)',
    (fn) => {
      expect(channelIdsPostedBy(config, fn).sort()).toEqual([...POSTS_TO[fn]!].sort());
    },
  );

  it('each Secrets Manager secret once, the environment’s none', () => {
    const shared = config.channels.filter((c) => c.id === 'shared-slack' || c.id === 'desk-local');
    expect(channelSecretIds([...shared, ...shared])).toEqual(['pulse/channels/shared']);
  });

  it('refuses a secret id with * or ?, which would reach other secrets', () => {
    for (const secretId of ['pulse/*', 'arn:aws:secretsmanager:us-east-1:123456789012:secret:pulse/ops-??????']) {
      const channel = { ...config.channels[0]!, secret: { source: 'secretsManager' as const, secretId } };
      expect(() => channelSecretIds([channel])).toThrow(UngrantableSecretIdError);
    }
  });
});

describe('the stack with channels', () => {
  const config = channelsConfig();
  const { stack, template, findings, warnings } = synthPulse({ props: { config } });

  it('synthesizes cdk-nag clean', () => {
    expect(findings).toEqual([]);
  });

  it.each(CHANNEL_POSTERS)(
    '%s may read exactly its channels’ secrets: a name with the six-character suffix, an ARN as given',
    (job) => {
      const expected = secretIdsPostedBy(job).map((id) =>
        id.startsWith('arn:') ? (/-[A-Za-z0-9]{6}$/.test(id) ? id : `${id}-??????`) : `${BY_NAME}${id}-??????`,
      );
      expect(channelSecretsOf(template, job)).toEqual([...new Set(expected)].sort());
    },
  );

  it('a complete ARN is granted as given, a partial one with the suffix, a name in the stack’s region', () => {
    expect(channelSecretsOf(template, 'digest')).toContain(CHANNEL_SECRETS['board-teams'].secretId);
    expect(channelSecretsOf(template, 'license-alerts')).toContain(`${CHANNEL_SECRETS['trial-slack'].secretId}-??????`);
    expect(channelSecretsOf(template, 'mail-events')).toEqual([`${BY_NAME}pulse/channels/ops-notices-??????`]);
  });

  it('the archive’s two steps (either may finish a run) read exactly archive.channels’ secrets, no notice channel’s', () => {
    for (const job of ['archive-plan', 'archive-copy'])
      expect(channelSecretsOf(template, job)).toEqual([
        `${BY_NAME}pulse/channels/archive-hook-??????`,
        `${BY_NAME}pulse/channels/shared-??????`,
      ]);
  });

  it('the functions that post nothing read no channel secret, and nobody reads an unused channel’s', () => {
    const jobs = Object.values(template.findResources('AWS::Lambda::Function')).flatMap(
      (f) => f.Properties.Environment?.Variables?.PULSE_JOB ?? [],
    );
    const silent = jobs.filter((job: string) => !(CHANNEL_POSTERS as readonly string[]).includes(job)).sort();
    expect(silent).toEqual(['archive-verify', 'license-sync', 'secret-setup']);
    for (const job of silent) expect(JSON.stringify(statementsOf(template, job))).not.toContain('pulse/channels/');
    expect(JSON.stringify(template.toJSON())).not.toContain('pulse/channels/spare');
  });

  it('an env-sourced channel gets no grant and a synth warning naming it (and no other)', () => {
    expect(warnings).toEqual(['Construct Annotations Annotation::pulse:channel-secret-from-env warning Pulse']);
    const [warning] = Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp('secret.source "env"'));
    const message = String(warning?.entry.data);
    expect(message).toContain('Channel desk-local: its secret comes from the environment');
    expect(message).toContain('"source": "secretsManager"');
    for (const other of ['exec-slack', 'spare', 'ops-notices']) expect(message).not.toContain(other);
    // Nor does any function's environment hold the variable a local run would read it from.
    expect(JSON.stringify(template.findResources('AWS::Lambda::Function'))).not.toContain('PULSE_CHANNEL_');
  });

  it('warns of an env-sourced channel only when a function posts to it', () => {
    const unused = productionConfig();
    const quiet = synthPulse({
      props: { config: { ...unused, channels: [{ ...config.channels.find((c) => c.id === 'desk-local')! }] } },
    });
    expect(quiet.warnings).toEqual([]);
    expect(JSON.stringify(statementsOf(quiet.template, 'digest'))).not.toContain('pulse/channels/');
  });

  it.each(['digest', 'license-alerts', 'license-report', 'mail-events'] as const)(
    '%s carries the channels and the notice channels in its bundle (ids and secret ids, no URL)',
    (job) => {
      const bundled = {
        digest: stack.digest,
        'license-alerts': stack.licenseAlerts,
        'license-report': stack.licenseReport,
        'mail-events': stack.mailEvents?.worker,
      }[job]?.bundledConfig;
      const part = JSON.parse(bundled!);
      expect(part.channels.map((c: { id: string }) => c.id)).toEqual(Object.keys(CHANNEL_SECRETS));
      expect(part.notices).toEqual({ channels: ['ops-notices'] });
    },
  );
  it('the usage alerts carry the channels and their rules’ channels, no notice channel, and load', () => {
    const part = JSON.parse(stack.usageAlerts!.bundledConfig!);
    expect(part.channels.map((c: { id: string }) => c.id)).toEqual(Object.keys(CHANNEL_SECRETS));
    expect(part.notices).toBeUndefined();
    expect(parseConfig(part, 'usage alerts').usageAlerts?.rules.flatMap((r) => r.channels)).toEqual([
      'usage-teams',
      'shared-slack',
    ]);
  });
  it('the archive steps carry the channels and archive.channels; the chain check and the sync carry neither, and load', () => {
    for (const step of [stack.archive?.plan, stack.archive?.copier]) {
      const part = JSON.parse(step!.bundledConfig!);
      expect(part.channels.map((c: { id: string }) => c.id)).toEqual(Object.keys(CHANNEL_SECRETS));
      expect(part.archive.channels).toEqual(['archive-hook', 'shared-slack']);
      expect(part.notices).toBeUndefined();
      expect(parseConfig(part, 'archive step').archive?.channels).toEqual(['archive-hook', 'shared-slack']);
    }
    for (const fn of [stack.archive?.verify, stack.licenseSync]) {
      const part = JSON.parse(fn!.bundledConfig!);
      expect(part.channels).toBeUndefined();
      expect(part.archive.channels).toEqual([]);
      expect(() => parseConfig(part, 'no poster')).not.toThrow();
    }
  });
});

describe('deploy config', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pulse-channel-grants-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a channel secret id the grant would turn into a wildcard, naming the file', () => {
    const file = join(dir, 'wildcard.json');
    const config = productionConfig();
    writeFileSync(
      file,
      JSON.stringify({
        ...config,
        channels: [{ id: 'ops', kind: 'slack', secret: { source: 'secretsManager', secretId: 'pulse/*' } }],
      }),
    );
    expect(() => loadDeployConfig(file)).toThrow(ConfigError);
    expect(() => loadDeployConfig(file)).toThrow(`${file}: channels ops: secret.secretId "pulse/*" holds * or ?`);
  });
});
