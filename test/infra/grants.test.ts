/**
 * The functions' rights follow the config: any archive prefix, the mail transport and its secret, the sender's SES
 * identities; the state table's actions are the ones the adapters call, on the items each job writes.
 */
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import {
  ARCHIVE_RUN_FOLDERS,
  archiveObjectPatterns,
  OTHER_JOBS_FOLDERS,
  STATE_KEYS,
  UnnarrowableKeyTemplateError,
  USAGE_ALERT_EVIDENCE_FOLDER,
} from '../../lib/stacks/grants.ts';
import { RUNS_PK } from '../../src/adapters/aws/dynamodb-archive-runs.ts';
import { USAGE_ALERT_STATE_PREFIX, unknownUsageAlertsPk } from '../../src/adapters/aws/dynamodb-usage-alert-states.ts';
import { failureSeenKey } from '../../src/app/new-failures.ts';
import { coverageKey } from '../../src/archive/coverage.ts';
import { manifestKey } from '../../src/archive/manifest.ts';
import { planKey } from '../../src/archive/plan-store.ts';
import type { PulseConfig } from '../../src/config/schema.ts';
import { channelAddress } from '../../src/core/channels/channel-targets.ts';
import {
  archiveEventLedgerKey,
  digestLedgerKey,
  licenseAlertLedgerKey,
  usageAlertLedgerKey,
  usageAlertProblemLedgerKey,
} from '../../src/core/delivery/ledger-keys.ts';
import { unknownNoticeKey } from '../../src/core/delivery/unknown-delivery-notice.ts';
import { digestArchivePrefix } from '../../src/core/digest-report.ts';
import { reportArchivePrefix } from '../../src/licenses/report/archive-report.ts';
import { snapshotKey } from '../../src/licenses/report/registry-snapshot.ts';
import { licenseReportLedgerKey } from '../../src/licenses/report/run-license-report.ts';
import { INCOMING } from '../../src/licenses/sync/sync-upload.ts';
import { evidenceKey } from '../../src/usage-alerts/evidence.ts';
import { seriesKey } from '../../src/usage-alerts/series.ts';
import { channelsConfig } from './channels-config.ts';
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
const withConfig = (change: (c: PulseConfig) => PulseConfig) =>
  synthPulse({ props: { config: change(productionConfig()) } });
const MAILERS = ['digest', 'license-alerts', 'license-report', 'usage-alerts'];
const ALL = [...MAILERS, 'archive-plan', 'archive-copy', 'license-sync'];

describe('archive prefix', () => {
  it.each(['acme/pulse-archive', 'acme/pulse-archive/', '', 'a'])(
    'synthesizes cdk-nag clean with prefix %j',
    (prefix) => {
      const { template, findings } = withConfig((c) => ({ ...c, archive: { ...c.archive!, prefix } }));
      expect(findings).toEqual([]);
      const folder = prefix.replace(/\/$/, '');
      const s3 = JSON.stringify(statementsOf(template, 'digest'));
      expect(s3).toContain(folder === '' ? '"/digests/*"' : `"/${folder}/digests/*"`);
      const copier = JSON.stringify(statementsOf(template, 'archive-copy'));
      const under = folder === '' ? '' : `${folder}/`;
      for (const part of ['12345678901', '9876543210', 'runs', 'manifests', 'coverage'])
        expect(copier).toContain(`"/${under}${part}/*"`);
      // Nothing under the prefix as a whole: not the digests, not license-sync/incoming.
      expect(copier).not.toContain(`"/${under}*"`);
    },
  );

  it('narrows a keyTemplate that does not start with the prefix to its products too', () => {
    const { template, findings } = withConfig((c) => ({
      ...c,
      archive: { ...c.archive!, prefix: 'acme', keyTemplate: 'exports/<prefix>/<product>/<fileName>' },
    }));
    expect(findings).toEqual([]);
    const text = JSON.stringify(statementsOf(template, 'archive-copy'));
    expect(text).toContain('"/acme/runs/*"');
    expect(text).toContain('"/exports/acme/12345678901/*"');
    expect(text).not.toContain('"/acme/*"');
  });

  it('narrows a keyTemplate that starts with the kind to the configured kinds', () => {
    const patterns = archiveObjectPatterns(
      { ...productionConfig().archive!, keyTemplate: '<prefix>/<kind>/<product>/<fileName>', kinds: ['exceptions'] },
      ['1'],
    );
    expect(patterns).toEqual({
      exports: ['pulse/exceptions/*'],
      plans: ['pulse/runs/*'],
      finished: ['pulse/manifests/*', 'pulse/coverage/*'],
    });
  });

  it.each([
    ['<prefix>/<yyyy>/<product>/<fileName>', 'its first folder with a placeholder is "<yyyy>"'],
    ['<prefix>/<product>-<kind>/<fileName>', 'its first folder with a placeholder is "<product>-<kind>"'],
    ['<prefix>/digests/<product>/<fileName>', 'its folder "digests" under the prefix belongs to another job'],
    ['<prefix>/license-sync/<product>/<fileName>', 'its folder "license-sync" under the prefix belongs to another job'],
    ['<prefix>/usage-alerts/<product>/<fileName>', 'its folder "usage-alerts" under the prefix belongs to another job'],
  ])('refuses a keyTemplate the rights cannot be narrowed for: %s', (keyTemplate, why) => {
    const archive = { ...productionConfig().archive!, keyTemplate };
    expect(() => archiveObjectPatterns(archive, ['1'])).toThrow(UnnarrowableKeyTemplateError);
    expect(() => archiveObjectPatterns(archive, ['1'])).toThrow(why);
  });

  it('the folders it keeps the archive out of are the ones the other jobs write', () => {
    const prefix = 'pulse';
    const keys = [
      digestArchivePrefix(prefix, 'exec', '2026-W47'),
      snapshotKey(prefix, '1', '2026-11-23'),
      reportArchivePrefix(prefix, '2026-W47'),
      `${prefix}/${INCOMING}/1/k.csv`,
      evidenceKey(prefix, '2026-11-27T10:40:00.000Z', '{}'),
    ];
    expect(keys.map((k) => k.split('/')[1])).toEqual([...OTHER_JOBS_FOLDERS]);
    // The usage alerts' grant is on the folder their evidence keys are built in.
    expect(keys.at(-1)!.startsWith(`${prefix}/${USAGE_ALERT_EVIDENCE_FOLDER.join('/')}/`)).toBe(true);
    const runKeys = [planKey(prefix, 'r'), manifestKey(prefix, 'r'), coverageKey(prefix, 'r')];
    expect(runKeys.map((k) => k.split('/')[1])).toEqual([...ARCHIVE_RUN_FOLDERS]);
  });
});

describe('mail rights', () => {
  it('SES: send only as the sender, on its domain and address identities, in the transport region', () => {
    const { template } = withConfig((c) => ({
      ...c,
      mail: { ...c.mail, transport: { kind: 'ses', region: 'eu-west-1' } },
    }));
    for (const job of MAILERS) {
      const ses = statementsOf(template, job).filter((s) => JSON.stringify(s.Action).includes('ses:'));
      expect(ses).toHaveLength(1);
      const resources = JSON.stringify(ses[0]!.Resource);
      expect(resources).toContain(':ses:eu-west-1:');
      expect(resources).toContain(':identity/example.com"');
      expect(resources).toContain(':identity/pulse@example.com"');
      expect(ses[0]!.Resource).not.toContain('*');
      expect(ses[0]!.Condition).toEqual({ StringEquals: { 'ses:FromAddress': 'pulse@example.com' } });
      expect(JSON.stringify(statementsOf(template, job))).not.toContain('smtp');
    }
  });

  it('SMTP with a credentials secret: GetSecretValue on that secret only, no SES; cdk-nag clean', () => {
    const { template, findings } = withConfig((c) => ({
      ...c,
      mail: {
        ...c.mail,
        transport: {
          kind: 'smtp',
          host: 'smtp.example.com',
          port: 587,
          secure: false,
          credentialsSecretId: 'pulse/smtp',
        },
      },
    }));
    expect(findings).toEqual([]);
    for (const job of ALL) {
      const text = JSON.stringify(statementsOf(template, job));
      expect(text).not.toContain('ses:');
      expect(text.includes(':secret:pulse/smtp-??????')).toBe(MAILERS.includes(job));
    }
    const smtp = statementsOf(template, 'digest').find((s) => JSON.stringify(s.Resource).includes('pulse/smtp'));
    expect(smtp!.Action).toBe('secretsmanager:GetSecretValue');
  });

  it('SMTP with a secret given by its complete ARN: exactly that ARN', () => {
    const arn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:pulse/smtp-AbCdEf';
    const { template, findings } = withConfig((c) => ({
      ...c,
      mail: {
        ...c.mail,
        transport: { kind: 'smtp', host: 'smtp.example.com', port: 587, secure: false, credentialsSecretId: arn },
      },
    }));
    expect(findings).toEqual([]);
    expect(statementsOf(template, 'digest')).toContainEqual(
      expect.objectContaining({ Action: 'secretsmanager:GetSecretValue', Resource: arn }),
    );
  });

  it('SMTP without a secret: neither SES nor any secret besides the Reporting Service one', () => {
    const { template } = withConfig((c) => ({
      ...c,
      mail: { ...c.mail, transport: { kind: 'smtp', host: 'smtp.example.com', port: 25, secure: false } },
    }));
    for (const job of MAILERS) {
      const text = JSON.stringify(statementsOf(template, job));
      expect(text).not.toContain('ses:');
      expect(text.match(/secretsmanager:GetSecretValue/g)).toHaveLength(1);
    }
  });
});

describe('state table rights', () => {
  const { template } = synthPulse();
  /** What DynamoDbLedger and DynamoDbArchiveRuns call, sorted. */
  const LEDGER = ['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'];
  const RUNS = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:UpdateItem'];
  const dynamo = (job: string) =>
    statementsOf(template, job).filter((s) => JSON.stringify(s.Action).includes('dynamodb:'));

  it.each([
    ['digest', LEDGER, STATE_KEYS.digest],
    ['license-alerts', LEDGER, STATE_KEYS.licenseAlerts],
    ['license-report', LEDGER, STATE_KEYS.licenseReport],
    ['archive-plan', RUNS, STATE_KEYS.archiveRuns],
    ['archive-copy', RUNS, STATE_KEYS.archiveRuns],
  ])('%s: exactly the actions its adapter calls, on its own items', (job, actions, keys) => {
    const [own, ...others] = dynamo(job);
    expect(own!.Action).toEqual(actions);
    expect(own!.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...keys] } });
    // A sender also reads the suppression list before each claim (src/core/delivery/deliver-once.ts), and only reads it.
    const reads = MAILERS.includes(job)
      ? [
          {
            Action: 'dynamodb:GetItem',
            Effect: 'Allow',
            Resource: own!.Resource,
            Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['mail-suppressed'] } },
          },
        ]
      : [];
    expect(others).toEqual(reads);
  });

  it('license sync touches no table', () => {
    expect(dynamo('license-sync')).toEqual([]);
  });

  /** IAM's StringLike: `*` any run of characters, `?` one. */
  const matches = (patterns: readonly string[], key: string) =>
    patterns.some((p) =>
      new RegExp(
        `^${p
          .replace(/[.+^${}()|[\]\\]/g, '\\$&')
          .replace(/\*/g, '.*')
          .replace(/\?/g, '.')}$`,
      ).test(key),
    );

  it('the granted leading keys match the keys the jobs really write', () => {
    const digestKey = digestLedgerKey('exec-weekly', '2026-W46', 'CEO@example.com');
    const alertKey = licenseAlertLedgerKey({
      productId: '1',
      licenseKey: 'K#1',
      stage: 'before-7',
      expiryDate: '2026-12-01',
      address: 'a@b.c',
    });
    const reportKey = licenseReportLedgerKey('2026-W46', 'a@b.c');
    const cases: [readonly string[], string][] = [
      [STATE_KEYS.digest, digestKey],
      [STATE_KEYS.digest, unknownNoticeKey(digestKey)],
      [STATE_KEYS.digest, 'digest-held#exec-weekly#2026-11-16'],
      [STATE_KEYS.licenseAlerts, alertKey],
      [STATE_KEYS.licenseAlerts, unknownNoticeKey('license-alerts#a@b.c#2026-11-16')],
      [STATE_KEYS.licenseReport, reportKey],
      [STATE_KEYS.licenseReport, unknownNoticeKey(reportKey)],
      [STATE_KEYS.archiveRuns, RUNS_PK],
      [STATE_KEYS.archiveRuns, 'archive-run#2026-11-20T02:20:00Z'],
    ];
    for (const [patterns, key] of cases) expect(matches(patterns, key), key).toBe(true);
    expect(matches(STATE_KEYS.licenseAlerts, digestKey)).toBe(false);
  });

  it('the usage alerts’ deliveries, failures and series states match their own patterns and no other job’s', () => {
    const series = seriesKey({ ruleId: 'versions', productId: '12345678901', segment: '5.2 #beta' });
    const own: [readonly string[], string][] = [
      [STATE_KEYS.usageAlerts, usageAlertLedgerKey(series, '2026-11-26', 'firing', 'CPO@example.com')],
      [STATE_KEYS.usageAlerts, usageAlertLedgerKey(series, '2026-11-23', 'resolved', channelAddress('ops-slack'))],
      [STATE_KEYS.usageAlerts, failureSeenKey('usage-alerts', 'report calls failed: ServiceError: 503')],
      [STATE_KEYS.usageAlerts, usageAlertProblemLedgerKey('versions', '12345678901', 'BadRequestError: 400')],
      [STATE_KEYS.usageAlertStates, `${USAGE_ALERT_STATE_PREFIX}${series}`],
      [STATE_KEYS.usageAlertStates, unknownUsageAlertsPk(channelAddress('ops-slack'))],
    ];
    for (const [patterns, key] of own) {
      expect(matches(patterns, key), key).toBe(true);
      for (const [job, others] of Object.entries(STATE_KEYS))
        if (others !== patterns) expect(matches(others, key), `${job}: ${key}`).toBe(false);
    }
  });

  it('an archive run’s event key matches archive-event#* and no other job’s keys', () => {
    const eventKey = archiveEventLedgerKey('2026-11-27T02-20-00.000Z', channelAddress('archive-hook'));
    expect(eventKey).toBe('archive-event#2026-11-27T02-20-00.000Z#channel:archive-hook');
    expect(matches(STATE_KEYS.archiveEvents, eventKey)).toBe(true);
    for (const [job, patterns] of Object.entries(STATE_KEYS))
      if (job !== 'archiveEvents') expect(matches(patterns, eventKey), job).toBe(false);
    // Nor do the archive's event patterns reach the run records or another job's deliveries.
    for (const key of [
      RUNS_PK,
      'archive-run#2026-11-20T02:20:00Z',
      digestLedgerKey('exec-weekly', '2026-W46', 'a@b.c'),
    ])
      expect(matches(STATE_KEYS.archiveEvents, key), key).toBe(false);
  });
});

describe('the archive’s run events: ledger rights only with archive.channels', () => {
  const LEDGER = ['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'];
  const RUNS = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:UpdateItem'];
  const leading = (keys: readonly string[]) => ({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...keys] } });
  const dynamo = (template: Template, job: string) =>
    statementsOf(template, job)
      .filter((s) => JSON.stringify(s.Action).includes('dynamodb:'))
      .map((s) => ({ Action: s.Action, Condition: s.Condition }));
  const withChannels = synthPulse({ props: { config: channelsConfig() } });
  const without = synthPulse();

  it.each(['archive-plan', 'archive-copy'])(
    '%s: the run records, and the ledger on archive-event keys when archive.channels names channels',
    (job) => {
      expect(channelsConfig().archive!.channels).not.toEqual([]);
      expect(dynamo(withChannels.template, job)).toEqual([
        { Action: RUNS, Condition: leading(STATE_KEYS.archiveRuns) },
        { Action: LEDGER, Condition: leading(STATE_KEYS.archiveEvents) },
      ]);
    },
  );

  it.each(['archive-plan', 'archive-copy'])('%s: the run records only without archive channels', (job) => {
    expect(productionConfig().archive!.channels).toEqual([]);
    expect(dynamo(without.template, job)).toEqual([{ Action: RUNS, Condition: leading(STATE_KEYS.archiveRuns) }]);
  });

  it('no other function is granted archive-event keys; without archive channels none is', () => {
    const others = [...MAILERS, 'license-sync', 'archive-verify', 'mail-events'];
    for (const job of others)
      expect(JSON.stringify(statementsOf(withChannels.template, job)), job).not.toContain('archive-event#');
    expect(JSON.stringify(without.template.toJSON())).not.toContain('archive-event#');
  });
});
