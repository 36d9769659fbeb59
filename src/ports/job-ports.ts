/**
 * The ports a job run by the CLI or a Lambda gets: the service client, mail, the delivery ledger and suppression
 * list, the archive, the clock and the logger. The digest and the license report take exactly these (the license
 * alerts, sync and archive take parts of them); src/app builds them for AWS and for local runs.
 */
import type { ReportingClient } from '../client/index.ts';
import type { ArchiveStore } from './archive-store.ts';
import type { ChannelPorts } from './channels.ts';
import type { Clock } from './clock.ts';
import type { Ledger } from './ledger.ts';
import type { Logger } from './logger.ts';
import type { Mailer } from './mailer.ts';
import type { ReportPages } from './report-pages.ts';
import type { SuppressionList } from './suppressions.ts';
import type { UnknownUsageAlerts, UsageAlertStates } from './usage-alert-states.ts';

export interface JobPorts {
  client: ReportingClient;
  mailer: Mailer;
  ledger: Ledger;
  /** Addresses not to mail (hard bounces, complaints), asked by deliverOnce before each claim. */
  suppressions: SuppressionList;
  /** Where sent reports are kept; absent = not archived (and no "view in browser" link). */
  archive: ArchiveStore | undefined;
  clock: Clock;
  logger: Logger;
  /** Slack, Teams and webhook channels; absent = a config that names channels fails those deliveries by name. */
  channels?: ChannelPorts;
  /**
   * Where a full report page is written and linked from the email instead of the archive's copy (local runs: a
   * folder beside the outbox, since the local S3 is gone after the run); absent = link the archive's copy.
   */
  pages?: ReportPages;
  /**
   * The usage alerts' states and unknown deliveries (src/usage-alerts/); absent = a runtime that cannot send usage
   * alerts.
   */
  usageAlertStates?: UsageAlertStates & UnknownUsageAlerts;
}
