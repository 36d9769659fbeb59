/**
 * What the functions' IAM statements are made of, derived from the config and from what the code does, so a grant
 * follows the config (any archive prefix, the mail transport, the sender) instead of assuming the example's values.
 * No AWS CDK import: the tests check these against the key builders and adapters they stand for.
 */
import type { ArchiveConfig, PulseConfig } from '../../src/config/schema.ts';
import { folderUnder, trimPrefix } from '../../src/core/archive-key.ts';

/**
 * The state table's API calls, exactly those the adapters make: the ledger (src/adapters/aws/dynamodb-ledger.ts:
 * get, conditional put, update, delete of a released claim) and the archive runs (dynamodb-archive-runs.ts: get,
 * conditional put, update of the counter, query of a run's outcomes).
 */
export const LEDGER_ACTIONS = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'];
export const ARCHIVE_RUN_ACTIONS = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:Query'];
/**
 * The usage alerts' series states (dynamodb-usage-alert-states.ts: a get, a conditional put that overwrites): granted
 * apart from its ledger items, whose update and delete a state never needs.
 */
export const USAGE_ALERT_STATE_ACTIONS = ['dynamodb:GetItem', 'dynamodb:PutItem'];

/**
 * The partition keys (`dynamodb:LeadingKeys`, StringLike) each job's items have: its deliveries, its own notices,
 * the owner's notice of an unknown delivery (`notice-unknown#<the delivery's key>`) and the failures it reported
 * (`failure-seen#<job>#…`, src/app/new-failures.ts); the usage alerts' series states; the archive's run events. The
 * builders are src/core/delivery/ledger-keys.ts (used by the digest, the license jobs and the usage alerts),
 * src/core/delivery/unknown-delivery-notice.ts, src/adapters/aws/dynamodb-usage-alert-states.ts and
 * src/adapters/aws/dynamodb-archive-runs.ts; the infra tests build real keys with them and match them against these.
 */
export const STATE_KEYS = {
  digest: ['digest#*', 'digest-held#*', 'notice-unknown#digest#*', 'failure-seen#digest#*'],
  licenseAlerts: ['license-alert#*', 'notice-unknown#license-alerts#*', 'failure-seen#license-alerts#*'],
  licenseReport: ['license-report#*', 'notice-unknown#license-report#*', 'failure-seen#license-report#*'],
  /**
   * Its deliveries, its notices to a rule's owner that the rule cannot be judged (`usage-alert-problem#`,
   * src/usage-alerts/tell-rule-problems.ts) and its reported failures; it sends no notice of an unknown delivery
   * (src/usage-alerts/tell-changes.ts: the run's alarm is the notice).
   */
  usageAlerts: ['usage-alert#*', 'usage-alert-problem#*', 'failure-seen#usage-alerts#*'],
  /** Its series states (USAGE_ALERT_STATE_ACTIONS): `usage-alert#*` does not reach them (no `#` after `usage-alert`). */
  usageAlertStates: ['usage-alert-state#*'],
  archiveRuns: ['archive-runs', 'archive-run#*'],
  /** A finished run's events to `archive.channels` (src/archive/announce-run.ts): granted only when it has some. */
  archiveEvents: ['archive-event#*'],
} as const;

/**
 * The mail events' items (src/mail-events/, src/adapters/aws/dynamodb-suppressions.ts): every mailing function
 * reads the suppression list before it claims (GetItem); only the mail-events function adds to it (a conditional
 * put), records an event on a delivery's ledger record (a conditional update of the senders' delivery items, never
 * a new one) and sends the owner's notice (`notice-mail#…`, at most once). Clearing and listing are operators' (their
 * own credentials: `pulse mail clear-suppression`, `pulse doctor`).
 */
export const SUPPRESSION_KEYS = ['mail-suppressed'] as const;
export const MAIL_EVENTS_STATE = [
  { actions: ['dynamodb:GetItem', 'dynamodb:PutItem'], keys: SUPPRESSION_KEYS },
  { actions: LEDGER_ACTIONS, keys: ['notice-mail#*'] },
  {
    actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
    keys: [
      'digest#*',
      'digest-held#*',
      'digest-preview#*',
      'license-alert#*',
      'license-report#*',
      'usage-alert#*',
      'usage-alert-problem#*',
      'notice-unknown#*',
    ],
  },
] as const;

/** Every digest's browser copy (src/core/digest-report.ts `browserCopyKey`): what a usage alert links to. */
export const digestBrowserCopies = (prefix: string): string => `${folderUnder(prefix, 'digests')}*/index.html`;

/** The object-key pattern of everything under `<prefix>/<parts…>/`; the whole bucket for an empty prefix. */
export function objectsUnder(prefix: string, ...parts: string[]): string {
  return trimPrefix(prefix) === '' && parts.length === 0 ? '*' : `${folderUnder(prefix, ...parts)}*`;
}

/**
 * The folders directly under the archive prefix that belong to the other jobs (the digest, the license report, the
 * license sync, the usage alerts' evidence) or to the archive's own run records; the key builders of the jobs (src/digest, src/licenses, src/archive) name them, and the infra tests
 * check these against keys they build.
 */
export const ARCHIVE_RUN_FOLDERS = ['runs', 'manifests', 'coverage'] as const;
export const OTHER_JOBS_FOLDERS = [
  'digests',
  'license-registry',
  'license-reports',
  'license-sync',
  'usage-alerts',
] as const;

/** Where the usage alerts keep each run's evidence (src/usage-alerts/evidence.ts `evidenceKey`), under the prefix. */
export const USAGE_ALERT_EVIDENCE_FOLDER = ['usage-alerts', 'evidence'] as const;

/** A key template the archive functions' rights cannot be narrowed for (deploy only: lib/deploy-config.ts). */
export class UnnarrowableKeyTemplateError extends Error {
  override name = 'UnnarrowableKeyTemplateError';
}

/**
 * Where the archive functions (plan step and copiers) read and write, and nothing else: the exports where
 * `archive.keyTemplate` puts them, narrowed to the configured products (or kinds) by the template's first folder
 * with a placeholder, so no pattern reaches another job's folder (`<prefix>/license-sync/incoming/` would trigger
 * writes into the service's license registry); the plans (`runs/`); and what finishing a run writes (`manifests/`,
 * `coverage/`). The plan step writes plans and, finishing a stale run, manifests; the copiers write exports and
 * manifests and read the plans.
 */
export function archiveObjectPatterns(
  archive: ArchiveConfig,
  productIds: readonly string[],
): { exports: string[]; plans: string[]; finished: string[] } {
  const [plans, ...finished] = ARCHIVE_RUN_FOLDERS.map((folder) => objectsUnder(archive.prefix, folder));
  return { exports: exportPatterns(archive, productIds), plans: [plans!], finished };
}

function exportPatterns(archive: ArchiveConfig, productIds: readonly string[]): string[] {
  const filled = archive.keyTemplate.replaceAll('<prefix>', trimPrefix(archive.prefix));
  const segments = filled.split('/').filter((s) => s !== '');
  const at = segments.findIndex((s) => s.includes('<'));
  const segment = segments[at]!; // keyTemplate always has <fileName>
  const fixed = segments.slice(0, at);
  const refuse = (why: string) =>
    new UnnarrowableKeyTemplateError(
      `archive.keyTemplate ${JSON.stringify(archive.keyTemplate)}: ${why}, so the archive functions' rights could ` +
        "reach the other jobs' folders; start the key with <product> or <kind> after the prefix " +
        '(the default is <prefix>/<product>/<kind>/<yyyy>/<mm>/<fileName>)',
    );
  const placeholders = segment.match(/<[^<>]*>/g) ?? [];
  const name = placeholders.length === 1 ? placeholders[0] : undefined;
  const values = name === '<product>' ? productIds : name === '<kind>' ? archive.kinds : undefined;
  if (values === undefined) throw refuse(`its first folder with a placeholder is ${JSON.stringify(segment)}`);
  // A fixed folder right under the prefix must not be one the other jobs (or the run records) use.
  const reserved = new Set<string>([...OTHER_JOBS_FOLDERS, ...ARCHIVE_RUN_FOLDERS]);
  const prefixParts = trimPrefix(archive.prefix)
    .split('/')
    .filter((s) => s !== '');
  const firstUnderPrefix = prefixParts.every((part, i) => fixed[i] === part) ? fixed[prefixParts.length] : undefined;
  if (firstUnderPrefix !== undefined && reserved.has(firstUnderPrefix))
    throw refuse(`its folder ${JSON.stringify(firstUnderPrefix)} under the prefix belongs to another job`);
  return values.map((value) => [...fixed, segment.replace(name!, value)].join('/')).map((folder) => `${folder}/*`);
}

/** The resource pattern of a Secrets Manager secret given by name, partial or complete ARN. */
export function secretResourcePattern(secretId: string, arnOfName: (name: string) => string): string {
  // A complete ARN ends in the six random characters Secrets Manager appends; a name or partial ARN matches them.
  if (secretId.startsWith('arn:')) return /-[A-Za-z0-9]{6}$/.test(secretId) ? secretId : `${secretId}-??????`;
  return arnOfName(`${secretId}-??????`);
}

/** The SES identities the sender may be verified as: its domain, or the address itself. */
export function senderIdentities(config: PulseConfig): string[] {
  const from = config.mail.from.toLowerCase();
  return [from.slice(from.lastIndexOf('@') + 1), from];
}
