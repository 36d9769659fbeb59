/**
 * The counts of a license alert run (`--json`, the Lambda's result). Alert counts are per (key, stage, recipient); the
 * delivery states `failed`, `sentUnconfirmed` and `unknown` count emails, as in docs/delivery.md "Delivery states";
 * `stage:<stage>` and `label:<label>` count the alerts sent (in a dry run: that would be sent). `recipients` has the
 * same alerts per recipient, email and stage (the dry run's table). Every listing is in one order (`ordered`): stages
 * as a key lives through them (stage.ts `lifecycleRank`), labels alphabetical, recipients by alerts then address.
 */
import type { OutcomeCounters } from '../../core/delivery/delivery-tally.ts';
import type { JobResult } from '../../core/job-result.ts';
import { byLifecycle, type Stage } from './stage.ts';

export type LicenseAlertCounts = {
  /** Registry keys read, over all products. */
  keysScanned: number;
  /** Registry records left out because they could not be read. */
  recordsUnreadable: number;
  /** Alerts in emails that went out (in a dry run: alerts that would be sent). */
  alertsSent: number;
  /** The ledger says an earlier run sent them. */
  alertsSkippedAlreadySent: number;
  /** Another run holds their claim right now (it sends them). */
  alertsInProgressElsewhere: number;
  /** An earlier email carrying them may or may not have gone out: not sent again (--resend-unknown). */
  alertsUnknown: number;
  /** Unknown alerts recorded as delivered with --confirm-unknown, without sending. */
  alertsConfirmed: number;
  /** Emails sent (alert emails and first-run summaries). */
  emails: number;
  /** Channel messages posted (Slack, Teams, webhooks), one per route channel like an email per recipient. */
  posts: number;
  /** Of the emails and posts, first-run summaries (`licenses.firstRun: "summary"`; in a dry run: that would be sent). */
  summaries: number;
  /** Alerts listed in those summaries, recorded as seen (counted in `alertsSent` too). */
  alertsInSummaries: number;
  /** Emails certainly not sent (their alerts are released: the next run sends them). */
  failed: number;
  /** Emails sent but not recorded in the ledger. */
  sentUnconfirmed: number;
  /** Emails that may or may not have gone out. */
  unknown: number;
  inProgressElsewhere: number;
  /** Recipients not told: on the suppression list (a hard bounce or a complaint); their alerts stay unclaimed. */
  suppressed: number;
  /** `stage:before-7`, `label:renewalPriority`, … */
  [perStageOrLabel: string]: number;
};

export const emptyLicenseAlertCounts = (): LicenseAlertCounts => ({
  keysScanned: 0,
  recordsUnreadable: 0,
  alertsSent: 0,
  alertsSkippedAlreadySent: 0,
  alertsInProgressElsewhere: 0,
  alertsUnknown: 0,
  alertsConfirmed: 0,
  emails: 0,
  posts: 0,
  summaries: 0,
  alertsInSummaries: 0,
  failed: 0,
  sentUnconfirmed: 0,
  unknown: 0,
  inProgressElsewhere: 0,
  suppressed: 0,
});

/** How one email's outcome counts (delivery-tally.ts). */
export const EMAIL_COUNTERS: OutcomeCounters = {
  sent: 'emails',
  alreadySent: 'alertsSkippedAlreadySent',
  inProgressElsewhere: 'inProgressElsewhere',
  failed: 'failed',
  sentUnconfirmed: 'sentUnconfirmed',
  unknown: 'unknown',
  suppressed: 'suppressed',
};

/** How one channel message's outcome counts: like an email's, but posted. */
export const POST_COUNTERS: OutcomeCounters = { ...EMAIL_COUNTERS, sent: 'posts' };

export function addTo(result: JobResult<LicenseAlertCounts>, name: string, n = 1): void {
  result.counts[name] = (result.counts[name] ?? 0) + n;
}

/** What one email carried (in a dry run: would carry), per stage. */
export interface RecipientCount {
  address: string;
  /** `alerts`: the alert email; `summary`: a first run's summary (`licenses.firstRun`). */
  email: 'alerts' | 'summary';
  /** Alerts per stage, in lifecycle order. */
  stages: Partial<Record<Stage, number>>;
  alerts: number;
}

/** A license alert run's result: the job's counts, and the same alerts per recipient and stage. */
export interface LicenseAlertResult extends JobResult<LicenseAlertCounts> {
  /** Most alerts first, then by address (then alert email before summary). */
  recipients: RecipientCount[];
}

export function recipientCount(
  address: string,
  email: RecipientCount['email'],
  byStage: Map<Stage, number>,
): RecipientCount {
  const stages = [...byStage].sort(([a], [b]) => byLifecycle(a, b));
  return { address, email, stages: Object.fromEntries(stages), alerts: stages.reduce((n, [, c]) => n + c, 0) };
}

const byAlertsThenAddress = (a: RecipientCount, b: RecipientCount): number =>
  b.alerts - a.alerts || compare(a.address, b.address) || compare(a.email, b.email);

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The result with every listing in its order: the fixed counts first, then `stage:*` in lifecycle order, then
 * `label:*` alphabetical (an object lists its keys in the order they were added, which was the order met).
 */
export function ordered(result: LicenseAlertResult): LicenseAlertResult {
  const fixed = Object.keys(emptyLicenseAlertCounts());
  const rest = Object.keys(result.counts).filter((k) => !fixed.includes(k));
  const stages = rest.filter((k) => k.startsWith('stage:'));
  const labels = rest.filter((k) => k.startsWith('label:')).sort(compare);
  const others = rest.filter((k) => !k.startsWith('stage:') && !k.startsWith('label:')).sort(compare);
  stages.sort((a, b) => byLifecycle(a.slice(6) as Stage, b.slice(6) as Stage));
  const counts = Object.fromEntries(
    [...fixed, ...stages, ...labels, ...others].map((k) => [k, result.counts[k] ?? 0]),
  ) as LicenseAlertCounts;
  return { ...result, counts, recipients: [...result.recipients].sort(byAlertsThenAddress) };
}
