/**
 * What one run of the license alerts hands each recipient's notification (notify-recipient.ts, channel-post.ts):
 * the config, the ports, the run's clock and usage windows, its scratch folder and result.
 */
import type { ReportingClient } from '../../client/index.ts';
import type { LicensesConfig, PulseConfig } from '../../config/schema.ts';
import type { DeliveryPorts } from '../../core/delivery/deliver-once.ts';
import type { ScratchDir } from '../../core/spill-file.ts';
import type { ChannelPorts } from '../../ports/channels.ts';
import type { Clock } from '../../ports/clock.ts';
import type { Ledger } from '../../ports/ledger.ts';
import type { LicenseAlertResult } from './counts.ts';
import type { UsageWindows } from './usage.ts';

export interface RunContext {
  config: PulseConfig;
  licenses: LicensesConfig;
  ports: DeliveryPorts & {
    client: Pick<ReportingClient, 'dateRangeReport'>;
    ledger: Ledger;
    clock: Clock;
    channels?: ChannelPorts;
  };
  now: Date;
  windows: UsageWindows;
  /** Where the drafts keep their CSV lines and ledger keys. */
  scratch: ScratchDir;
  dryRun: boolean;
  /**
   * Alerts whose earlier email's outcome is unknown, after a person checked the mail server's log: `resend` sends
   * them again, `confirm` records them as delivered without sending. Default: report them and tell the owner once.
   */
  unknownDeliveries: 'resend' | 'confirm' | undefined;
  result: LicenseAlertResult;
}

/** Which email a spool becomes: the alerts, or a first run's summary of the named products. */
export type EmailKind = { kind: 'alerts' } | { kind: 'summary'; productNames: string[] };
