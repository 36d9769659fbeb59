/**
 * The counts of a license alert run (`--json`, the Lambda's result). Alert counts are per (key, stage, recipient); the
 * delivery states `failed`, `sentUnconfirmed` and `unknown` count emails, as in docs/delivery.md "Delivery states";
 * `stage:<stage>` and `label:<label>` count the alerts sent (in a dry run: that would be sent).
 */
import type { OutcomeCounters } from '../../core/delivery/delivery-tally.ts';
import type { JobResult } from '../../core/job-result.ts';

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
  /** Emails sent. */
  emails: number;
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

export function addTo(result: JobResult<LicenseAlertCounts>, name: string, n = 1): void {
  result.counts[name] = (result.counts[name] ?? 0) + n;
}
