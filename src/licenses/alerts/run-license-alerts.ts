/**
 * The license alert job (`pulse licenses`, the hourly Lambda, `npm start`): stream each product's license key
 * registry (registry-stream.ts), evaluate every key as it passes (evaluate.ts: routing, stages in each recipient's
 * time zone), spool the alerts per recipient on disk (alert-spool.ts), then tell each recipient once
 * (notify-recipient.ts: claim in the ledger, usage from the service, one email under all the claims). Memory holds
 * pages and batches, never the registry or all its alerts. The same function runs in Lambda, the CLI and tests.
 *
 * With `licenses.firstRun: "summary"` (the default), a recipient's alerts of a product whose first run this is for
 * them (first-run.ts) are spooled apart and sent as one summary email, settled like alerts; the end of each first
 * run is recorded once the recipients were told.
 */

import type { ReportingClient } from '../../client/index.ts';
import type { PulseConfig } from '../../config/schema.ts';
import { localDateTime } from '../../core/calendar.ts';
import { ScratchDir } from '../../core/spill-file.ts';
import type { ChannelPorts } from '../../ports/channels.ts';
import type { Clock } from '../../ports/clock.ts';
import type { Ledger } from '../../ports/ledger.ts';
import type { Logger } from '../../ports/logger.ts';
import type { Mailer } from '../../ports/mailer.ts';
import type { SuppressionList } from '../../ports/suppressions.ts';
import { streamRegistry } from '../shared/registry-stream.ts';
import { AlertSpool, type RecipientSpool } from './alert-spool.ts';
import { addTo, emptyLicenseAlertCounts, type LicenseAlertResult, ordered } from './counts.ts';
import { evaluator } from './evaluate.ts';
import { FirstRuns } from './first-run.ts';
import { notifyRecipient } from './notify-recipient.ts';
import { type LicenseRecipient, recipientsOf, withChannelRecipients } from './routing.ts';
import type { EmailKind } from './run-context.ts';
import { usageWindows } from './usage.ts';

export interface LicenseAlertPorts {
  client: ReportingClient;
  mailer: Mailer;
  ledger: Ledger;
  /** Addresses not to mail (hard bounces, complaints), asked before a recipient's alerts are claimed. */
  suppressions: SuppressionList;
  clock: Clock;
  logger: Logger;
  /** Routes and notices that name channels post through these. */
  channels?: ChannelPorts;
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

export type { LicenseAlertCounts, LicenseAlertResult, RecipientCount } from './counts.ts';

export async function runLicenseAlerts(
  config: PulseConfig,
  ports: LicenseAlertPorts,
  opts: LicenseAlertOptions = {},
): Promise<LicenseAlertResult> {
  const result: LicenseAlertResult = {
    job: 'license-alerts',
    ok: true,
    counts: emptyLicenseAlertCounts(),
    outputs: [],
    errors: [],
    recipients: [],
  };
  if (!config.licenses) {
    ports.logger.info('no licenses section in the config: nothing to do');
    return result;
  }
  const licenses = withChannelRecipients(config.licenses, config.channels);
  const scratch = await ScratchDir.create('pulse-license-alerts', opts.scratchDir);
  try {
    await alertAll(config, licenses, ports, opts, scratch, result);
  } finally {
    await scratch.remove();
  }
  return ordered(result);
}

async function alertAll(
  config: PulseConfig,
  licenses: NonNullable<PulseConfig['licenses']>,
  ports: LicenseAlertPorts,
  opts: LicenseAlertOptions,
  scratch: ScratchDir,
  result: LicenseAlertResult,
): Promise<void> {
  const now = ports.clock.now();
  const isTurn = (r: LicenseRecipient) => !opts.scheduled || localDateTime(now, r.timeZone).time >= licenses.sendTime;
  const alerts = new AlertSpool(scratch);
  const summaries = new AlertSpool(scratch);
  const firstRuns = licenses.firstRun === 'summary' ? new FirstRuns(ports.ledger) : undefined;
  const evaluate = evaluator(licenses, now, isTurn, (recipient, alert) =>
    (firstRuns?.isFirst(alert.productId, recipient.address) ? summaries : alerts).add(recipient, alert),
  );
  const productIds = opts.productIds ?? licenses.productIds ?? config.products.map((p) => p.id);
  for (const productId of productIds) {
    try {
      const inTurn = recipientsOf(licenses, productId).filter(isTurn);
      await firstRuns?.load(
        productId,
        inTurn.map((r) => r.address),
      );
    } catch (e) {
      // Without them every stage would look new: the product waits for the next run.
      fail(result, `product ${productId}: not alerted: its first-run records were not read: ${describe(e)}`);
      continue;
    }
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
        await alerts.flushIfFull();
        await summaries.flushIfFull();
      }
    } catch (e) {
      // One product's registry could not be read: its keys are not alerted; the others still are.
      firstRuns?.notRead(productId);
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
  const names = new Map(config.products.map((p) => [p.id, p.name ?? p.id]));
  const emails: [RecipientSpool, EmailKind][] = [
    ...alerts.recipients().map((r): [RecipientSpool, EmailKind] => [r, { kind: 'alerts' }]),
    ...summaries.recipients().map((r): [RecipientSpool, EmailKind] => {
      const products = firstRuns?.productsOf(r.recipient.address) ?? [];
      return [r, { kind: 'summary', productNames: products.map((id) => names.get(id) ?? id) }];
    }),
  ];
  // Most alerts first, then by address: the order of the run's lines, whatever the order keys were met in.
  emails.sort(([a], [b]) => b.alerts - a.alerts || compare(a.recipient.address, b.recipient.address));
  for (const [recipientSpool, email] of emails) {
    const { address } = recipientSpool.recipient;
    let told = false;
    try {
      told = await notifyRecipient(ctx, recipientSpool, email);
    } catch (e) {
      fail(result, `license alerts to ${address}: ${describe(e)}`);
      ports.logger.error('license alerts not sent', { recipient: address, error: describe(e) });
    }
    if (email.kind === 'summary' && !told) firstRuns?.notTold(address);
  }
  if (firstRuns && !ctx.dryRun) {
    for (const problem of await firstRuns.record({ firstRun: 'summary', at: ports.clock.now().toISOString() }))
      fail(result, problem);
  }
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function fail(result: LicenseAlertResult, error: string): void {
  result.ok = false;
  result.errors.push(error);
}

const describe = (e: unknown) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));
