/**
 * The ledger keys of every delivery Pulse makes, in one place: the stack grants each job its keys' prefixes
 * (lib/stacks/grants.ts), and the mail events read a bounced message's key back into its delivery
 * (src/mail-events/delivery-of.ts).
 *
 * The digest's: one per digest, ISO week and recipient; the owner's "held" notices; the preview copies.
 * The license jobs': one per license alert and one per license report delivery (below).
 *
 * The ledger key of one license alert: (product, key, stage, expiry date, recipient). The license key is free text
 * (`#`, spaces, any unicode), so it is percent-encoded, which keeps `#` as the only separator; a key whose encoding
 * would be long is replaced by its SHA-256, so the whole ledger key stays far below DynamoDB's 2,048-byte limit.
 */
import { createHash } from 'node:crypto';

/** The ledger keys of the owner's "digest held" notices (src/digest/failure-notice.ts): `digest-held#<digest id>#<UTC day>`. */
export const HELD_NOTICE_PREFIX = 'digest-held#';

export const digestLedgerKey = (digestId: string, isoWeek: string, address: string) =>
  `digest#${digestId}#${isoWeek}#${address.toLowerCase()}`;

/** What names a `--preview --send-to` copy in its delivery tag: no ledger record, no owner's notice of a bounce. */
export const PREVIEW_DELIVERY_PREFIX = 'digest-preview#';
export const previewDeliveryKey = (digestId: string, isoWeek: string, address: string) =>
  `${PREVIEW_DELIVERY_PREFIX}${digestId}#${isoWeek}#${address.toLowerCase()}`;

/** The parts of a digestLedgerKey (the mail events name a delivery by its key); undefined for any other key. */
export function parseDigestLedgerKey(key: string): { digestId: string; isoWeek: string; address: string } | undefined {
  const m = /^digest#([a-z0-9][a-z0-9-]*)#(\d{4}-W\d{2})#(.+)$/.exec(key);
  return m ? { digestId: m[1]!, isoWeek: m[2]!, address: m[3]! } : undefined;
}

const MAX_ENCODED = 400;

export function encodeLicenseKey(licenseKey: string): string {
  const encoded = encodeURIComponent(licenseKey);
  if (encoded.length <= MAX_ENCODED) return encoded;
  return `sha256-${createHash('sha256').update(licenseKey, 'utf8').digest('hex')}`;
}

export const LICENSE_ALERT_PREFIX = 'license-alert#';

export const licenseAlertLedgerKey = (a: {
  productId: string;
  licenseKey: string;
  /** The alert's stage (src/licenses/alerts/stage.ts). */
  stage: string;
  expiryDate: string | null;
  address: string;
}): string =>
  `${LICENSE_ALERT_PREFIX}${a.productId}#${encodeLicenseKey(a.licenseKey)}#${a.stage}#${a.expiryDate ?? 'none'}#${a.address.toLowerCase()}`;

/**
 * The record of a recipient's first run of a product's license alerts (src/licenses/alerts/first-run.ts): no
 * delivery, under the alerts' prefix (their grant); `first-run` is no product id (ids are digits).
 */
export const LICENSE_FIRST_RUN_PREFIX = `${LICENSE_ALERT_PREFIX}first-run#`;
export const licenseFirstRunLedgerKey = (productId: string, address: string): string =>
  `${LICENSE_FIRST_RUN_PREFIX}${productId}#${address.toLowerCase()}`;

/** The ledger key of one delivery of the weekly license report: (ISO week, recipient). */
export const licenseReportLedgerKey = (isoWeek: string, address: string) =>
  `license-report#${isoWeek}#${address.toLowerCase()}`;

/** The parts of a licenseReportLedgerKey (the mail events name a delivery by its key); undefined for any other. */
export function parseLicenseReportLedgerKey(key: string): { isoWeek: string; address: string } | undefined {
  const m = /^license-report#(\d{4}-W\d{2})#(.+)$/.exec(key);
  return m ? { isoWeek: m[1]!, address: m[2]! } : undefined;
}

/** The archive's run events (src/archive/announce-run.ts): one per (run, channel), `archive-event#<run id>#channel:<id>`. */
export const ARCHIVE_EVENT_PREFIX = 'archive-event#';
export const archiveEventLedgerKey = (runId: string, channelAddress: string): string =>
  `${ARCHIVE_EVENT_PREFIX}${runId}#${channelAddress}`;

/**
 * A usage alert told to one recipient (src/usage-alerts/tell-changes.ts): (series, period, state, recipient), the
 * series being `<rule>#<product>#<segment or ->` (src/usage-alerts/run-usage-alerts.ts `seriesKey`).
 */
export const USAGE_ALERT_PREFIX = 'usage-alert#';
export const usageAlertLedgerKey = (series: string, period: string, state: string, recipient: string): string =>
  `${USAGE_ALERT_PREFIX}${series}#${period}#${state}#${recipient.toLowerCase()}`;

/** The rule and period of a usageAlertLedgerKey (the mail events name a delivery by its key); undefined for others. */
export function parseUsageAlertLedgerKey(key: string): { ruleId: string; period: string } | undefined {
  const m = /^usage-alert#([a-z0-9][a-z0-9-]*)#[^#]+#[^#]+#(\d{4}-\d{2}-\d{2})#/.exec(key);
  return m ? { ruleId: m[1]!, period: m[2]! } : undefined;
}

/**
 * The notice to a usage rule's owner that the rule cannot be judged for a product (src/usage-alerts/tell-rule-problems.ts):
 * once per (rule, product, problem). The problem is named by a short hash of the reason's stable part (dates, times
 * and ids that change from run to run taken out), so the same refusal is told once and a new one is told again.
 */
export const USAGE_ALERT_PROBLEM_PREFIX = 'usage-alert-problem#';
export const usageAlertProblemLedgerKey = (ruleId: string, productId: string, reason: string): string =>
  `${USAGE_ALERT_PROBLEM_PREFIX}${ruleId}#${productId}#${createHash('sha256').update(stableReason(reason), 'utf8').digest('hex').slice(0, 16)}`;

/** A reason without what changes from run to run: timestamps, dates, UUIDs and long numbers (request ids). */
export const stableReason = (reason: string): string =>
  reason
    .replace(/\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?/g, '<date>')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<id>')
    .replace(/\d{6,}/g, '<n>');
