/**
 * What the functions' IAM statements are made of, derived from the config and from what the code does, so a grant
 * follows the config (any archive prefix, the mail transport, the sender) instead of assuming the example's values.
 * No AWS CDK import: the tests check these against the key builders and adapters they stand for.
 */
import type { ArchiveConfig, PulseConfig } from '../../src/config/schema.ts';
import { folderUnder, trimPrefix } from '../../src/ports/archive-key.ts';

/**
 * The state table's API calls, exactly those the adapters make: the ledger (src/adapters/aws/dynamodb-ledger.ts:
 * get, conditional put, update, delete of a released claim) and the archive runs (dynamodb-archive-runs.ts: get,
 * conditional put, update of the counter, query of a run's outcomes).
 */
export const LEDGER_ACTIONS = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'];
export const ARCHIVE_RUN_ACTIONS = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:Query'];

/**
 * The partition keys (`dynamodb:LeadingKeys`, StringLike) each job's items have: its deliveries, its own notices
 * and the owner's notice of an unknown delivery (`notice-unknown#<the delivery's key>`). The builders are in
 * src/jobs (digest/deliver.ts, digest/failure-notice.ts, licenses/ledger-key.ts, licenses/run-license-report.ts,
 * licenses/notify-recipient.ts, unknown-delivery-notice.ts) and src/adapters/aws/dynamodb-archive-runs.ts; the
 * infra tests build real keys with them and match them against these.
 */
export const STATE_KEYS = {
  digest: ['digest#*', 'digest-held#*', 'notice-unknown#digest#*'],
  licenseAlerts: ['license-alert#*', 'notice-unknown#license-alerts#*'],
  licenseReport: ['license-report#*', 'notice-unknown#license-report#*'],
  archiveRuns: ['archive-runs', 'archive-run#*'],
} as const;

/** The object-key pattern of everything under `<prefix>/<parts…>/`; the whole bucket for an empty prefix. */
export function objectsUnder(prefix: string, ...parts: string[]): string {
  return trimPrefix(prefix) === '' && parts.length === 0 ? '*' : `${folderUnder(prefix, ...parts)}*`;
}

/**
 * Where the archive functions write: the run records under the prefix, and the exports where `archive.keyTemplate`
 * puts them; a template that does not start with `<prefix>/` adds the folder its fixed start names.
 */
export function archiveObjectPatterns(archive: ArchiveConfig): string[] {
  const underPrefix = objectsUnder(archive.prefix);
  const filled = archive.keyTemplate.replaceAll('<prefix>', trimPrefix(archive.prefix)).replace(/\/{2,}/g, '/');
  const fixed = filled.slice(0, filled.indexOf('<')); // keyTemplate always has <fileName>
  const folder = fixed.slice(0, fixed.lastIndexOf('/') + 1).replace(/^\//, '');
  const forExports = `${folder}*`;
  const covered = underPrefix === '*' || forExports.startsWith(underPrefix.slice(0, -1));
  return covered ? [underPrefix] : [underPrefix, forExports];
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
