/**
 * The example production config with channels on every section that names them, each secret given a different way
 * (a name, a complete ARN, a partial ARN, the environment), one secret shared by two sections and one channel no
 * section names; and, written out by hand rather than computed by lib/stacks/channel-grants.ts, which channels each
 * function posts to. The infra tests (channel-grants.test.ts) and the IAM proof (test/iam/channel-secrets.test.ts)
 * both judge the stack against this table.
 */
import { parseConfig } from '../../src/config/load.ts';
import type { PulseConfig } from '../../src/config/schema.ts';
import { PRODUCTION_EXAMPLE, productionConfig } from './synth-pulse.ts';

/** Where the tests deploy (test/iam/cfn-resolver.ts TEST_TARGET): a complete ARN in that account and region. */
const ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret';

/** Channel id → its secret as the config gives it. */
export const CHANNEL_SECRETS = {
  'exec-slack': { source: 'secretsManager', secretId: 'pulse/channels/exec-slack' },
  'board-teams': { source: 'secretsManager', secretId: `${ARN}:pulse/channels/board-teams-Ab12Cd` },
  'shared-slack': { source: 'secretsManager', secretId: 'pulse/channels/shared' },
  'trial-slack': { source: 'secretsManager', secretId: `${ARN}:pulse/channels/trial-slack` },
  'report-hook': { source: 'secretsManager', secretId: 'pulse/channels/report-hook' },
  'ops-notices': { source: 'secretsManager', secretId: 'pulse/channels/ops-notices' },
  'desk-local': { source: 'env' },
  'archive-hook': { source: 'secretsManager', secretId: 'pulse/channels/archive-hook' },
  'usage-teams': { source: 'secretsManager', secretId: 'pulse/channels/usage-teams' },
  spare: { source: 'secretsManager', secretId: 'pulse/channels/spare' },
} as const;
export type ChannelId = keyof typeof CHANNEL_SECRETS;

const KINDS: Record<ChannelId, 'slack' | 'teams' | 'webhook'> = {
  'exec-slack': 'slack',
  'board-teams': 'teams',
  'shared-slack': 'slack',
  'trial-slack': 'slack',
  'report-hook': 'webhook',
  'ops-notices': 'webhook',
  'desk-local': 'slack',
  'archive-hook': 'webhook',
  'usage-teams': 'teams',
  spare: 'teams',
};

/**
 * The channels each function posts to (docs/iam.md "Channel secrets"): the digest its digests' channels, the license
 * alerts the routes', the license report the report's, every one of them and the mail events the notice channels;
 * the archive's two steps (either may finish a run) its run events' channels and no notice channel; the usage alerts
 * their rules' channels and no notice channel (they send no notice).
 */
export const POSTS_TO: Record<string, readonly ChannelId[]> = {
  digest: ['exec-slack', 'board-teams', 'shared-slack', 'ops-notices'],
  'license-alerts': ['trial-slack', 'desk-local', 'ops-notices'],
  'license-report': ['report-hook', 'shared-slack', 'ops-notices'],
  'mail-events': ['ops-notices'],
  'archive-plan': ['archive-hook', 'shared-slack'],
  'archive-copy': ['archive-hook', 'shared-slack'],
  'usage-alerts': ['usage-teams', 'shared-slack'],
};

/** The Secrets Manager ids of the channels `fn` posts to (none for an env-sourced channel). */
export const secretIdsPostedBy = (fn: string): string[] =>
  (POSTS_TO[fn] ?? []).flatMap((id) => {
    const secret = CHANNEL_SECRETS[id];
    return secret.source === 'secretsManager' ? [secret.secretId] : [];
  });

/**
 * The example production config with the channels above: two digests, both license routes, the report, notices, the
 * archive, a usage rule.
 */
export function channelsConfig(): PulseConfig {
  const base = productionConfig();
  const [exec] = base.digests;
  const licenses = base.licenses!;
  return parseConfig(
    {
      ...base,
      digests: [
        { ...exec!, channels: ['exec-slack', 'shared-slack'] },
        { ...exec!, id: 'board-weekly', recipients: [], channels: ['board-teams'] },
      ],
      licenses: {
        ...licenses,
        routing: [
          { ...licenses.routing[0]!, channels: ['trial-slack'] },
          { ...licenses.routing[1]!, channels: ['desk-local'] },
        ],
        report: { ...licenses.report!, channels: ['report-hook', 'shared-slack'] },
      },
      channels: Object.entries(CHANNEL_SECRETS).map(([id, secret]) => ({
        id,
        kind: KINDS[id as ChannelId],
        secret,
      })),
      notices: { channels: ['ops-notices'] },
      archive: { ...base.archive!, channels: ['archive-hook', 'shared-slack'] },
      usageAlerts: {
        rules: [
          base.usageAlerts!.rules[0]!,
          { ...base.usageAlerts!.rules[1]!, recipients: [], channels: ['usage-teams', 'shared-slack'] },
        ],
      },
    },
    `${PRODUCTION_EXAMPLE} with channels`,
  );
}
