/**
 * The license alert job (`pulse licenses`, the hourly Lambda, `npm start`): stream each product's license key
 * registry (registry-stream.ts), evaluate every key as it passes (evaluate.ts: routing, stages in each recipient's
 * time zone), spool the alerts per recipient on disk (alert-spool.ts), then tell each recipient once
 * (notify-recipient.ts: claim in the ledger, usage from the service, one email under all the claims). Memory holds
 * pages and batches, never the registry or all its alerts. The same function runs in Lambda, the CLI and tests.
 */
import type { ReportingClient } from '../../client/index.ts';
import type { PulseConfig } from '../../config/schema.ts';
import { localDateTime } from '../../core/calendar.ts';
import type { JobResult } from '../../core/job-result.ts';
import { ScratchDir } from '../../core/spill-file.ts';
import type { Clock } from '../../ports/clock.ts';
import type { Ledger } from '../../ports/ledger.ts';
import type { Logger } from '../../ports/logger.ts';
import type { Mailer } from '../../ports/mailer.ts';
import type { SuppressionList } from '../../ports/suppressions.ts';
import { streamRegistry } from '../shared/registry-stream.ts';
import { AlertSpool } from './alert-spool.ts';
import { addTo, emptyLicenseAlertCounts, type LicenseAlertCounts } from './counts.ts';
import { evaluator } from './evaluate.ts';
import { notifyRecipient } from './notify-recipient.ts';
import type { LicenseRecipient } from './routing.ts';
import { usageWindows } from './usage.ts';

export interface LicenseAlertPorts {
  client: ReportingClient;
  mailer: Mailer;
  ledger: Ledger;
  /** Addresses not to mail (hard bounces, complaints), asked before a recipient's alerts are claimed. */
  suppressions: SuppressionList;
  clock: Clock;
  logger: Logger;
}

export interface LicenseAlertOptions {
  /** Only these products (`--product`). */
  productIds?: string[];
  /** Evaluate and print who would be told what; read the ledger, write nothing, send nothing. */
  dryRun?: boolean;
  /** The hourly schedule: a recipient is told only once `sendTime` has passed in its time zone. */
  scheduled?: boolean;
  /**
   * Alerts whose earlier email may or may not have gone out, after a person checked the mail server's log:
   * `resend` sends them again, `confirm` records them as delivered without sending. Default: report them (exit 1)
   * and tell the owner once per such email.
   */
  unknownDeliveries?: 'resend' | 'confirm';
  /** Where the run keeps its alerts until it sends (removed at its end). @default the OS temp dir (Lambda: /tmp) */
  scratchDir?: string;
}

export type { LicenseAlertCounts } from './counts.ts';

export async function runLicenseAlerts(
  config: PulseConfig,
  ports: LicenseAlertPorts,
  opts: LicenseAlertOptions = {},
): Promise<JobResult<LicenseAlertCounts>> {
  const result: JobResult<LicenseAlertCounts> = {
    job: 'license-alerts',
    ok: true,
    counts: emptyLicenseAlertCounts(),
    outputs: [],
    errors: [],
  };
  const licenses = config.licenses;
  if (!licenses) {
    ports.logger.info('no licenses section in the config: nothing to do');
    return result;
  }
  const scratch = await ScratchDir.create('pulse-license-alerts', opts.scratchDir);
  try {
    await alertAll(config, licenses, ports, opts, scratch, result);
  } finally {
    await scratch.remove();
  }
  return result;
}

async function alertAll(
  config: PulseConfig,
  licenses: NonNullable<PulseConfig['licenses']>,
  ports: LicenseAlertPorts,
  opts: LicenseAlertOptions,
  scratch: ScratchDir,
  result: JobResult<LicenseAlertCounts>,
): Promise<void> {
  const now = ports.clock.now();
  const isTurn = (r: LicenseRecipient) => !opts.scheduled || localDateTime(now, r.timeZone).time >= licenses.sendTime;
  const spool = new AlertSpool(scratch);
  const evaluate = evaluator(licenses, now, isTurn, spool.add);
  const productIds = opts.productIds ?? licenses.productIds ?? config.products.map((p) => p.id);
  for (const productId of productIds) {
    try {
      const pages = streamRegistry(ports.client, productId, {
        concurrency: config.service.concurrency,
        onProblem: (problem) => {
          addTo(result, 'recordsUnreadable');
          ports.logger.warn('registry record left out', { problem });
        },
      });
      for await (const page of pages) {
        result.counts.keysScanned += page.length;
        for (const key of page) evaluate.add(productId, key);
        await spool.flushIfFull();
      }
    } catch (e) {
      // One product's registry could not be read: its keys are not alerted; the others still are.
      fail(result, `product ${productId}: registry not read: ${describe(e)}`);
      ports.logger.error('license registry read failed', { productId, error: describe(e) });
    }
  }

  const ctx = {
    config,
    licenses,
    ports,
    now,
    windows: usageWindows(now.toISOString().slice(0, 10), licenses.usage.windowDays),
    scratch,
    dryRun: opts.dryRun === true,
    unknownDeliveries: opts.unknownDeliveries,
    result,
  };
  for (const recipientSpool of spool.recipients()) {
    const { address } = recipientSpool.recipient;
    try {
      await notifyRecipient(ctx, recipientSpool);
    } catch (e) {
      fail(result, `license alerts to ${address}: ${describe(e)}`);
      ports.logger.error('license alerts not sent', { recipient: address, error: describe(e) });
    }
  }
}

function fail(result: JobResult, error: string): void {
  result.ok = false;
  result.errors.push(error);
}

const describe = (e: unknown) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));
