/**
 * The weekly license registry report (`pulse licenses report`, the license-report Lambda): once the report's
 * schedule has passed in its time zone, for the ISO week that just ended, each product's registry is read once
 * (product-snapshot.ts: figures and the gzip CSV snapshot in one streamed pass, stored write-once), one email with
 * the figures per product and in total and their week-over-week change is archived like a sent digest and delivered
 * at most once per (ISO week, recipient) through deliver-once.ts. A week whose figures are stored reuses them, so a
 * later run sends the remaining recipients the same report without reading the registry again. A delivery whose
 * outcome is unknown is reported (exit 1), told once to the owner (`licenses.owner`, unknown-delivery-notice.ts)
 * and only resent or confirmed when a person asks (`unknownDeliveries`).
 */

import { archivePrefixOf, type LicensesConfig, type PulseConfig } from '../../config/schema.ts';
import { type IsoWeek, isDue, lastCompleteIsoWeek, localDateTime, reportWeek } from '../../core/calendar.ts';
import { channelAddress, channelsNamed, targetLabel } from '../../core/channels/channel-targets.ts';
import { noticeChannelsOf } from '../../core/channels/notice-channels.ts';
import { postOnce } from '../../core/channels/post-once.ts';
import { confirmDelivered } from '../../core/delivery/confirm-delivered.ts';
import { deliverOnce } from '../../core/delivery/deliver-once.ts';
import { licenseReportLabel } from '../../core/delivery/delivery-label.ts';
import { type DeliveryCounts, tallyDelivery } from '../../core/delivery/delivery-tally.ts';
import { licenseReportLedgerKey } from '../../core/delivery/ledger-keys.ts';
import { noticeUnknownDelivery, type UnknownDelivery } from '../../core/delivery/unknown-delivery-notice.ts';
import type { JobResult } from '../../core/job-result.ts';
import type { ArchiveStore } from '../../ports/archive-store.ts';
import type { JobPorts } from '../../ports/job-ports.ts';
import type { MailMessage } from '../../ports/mailer.ts';
import { archiveLicenseReport, reportArchivePrefix, reportBrowserCopyKey } from './archive-report.ts';
import { licenseReportChannelMessage } from './channel-message.ts';
import { productSnapshot } from './product-snapshot.ts';
import { renderLicenseReportEmail } from './report-email.ts';
import type { RegistryFigures } from './report-figures.ts';
import { licenseReportView, type ProductReport } from './report-view.ts';

/** The ports every job takes (`archive` is required here: the snapshots and last week's figures live there). */
export type LicenseReportPorts = JobPorts;

export interface LicenseReportOptions {
  /** `2026-W46`; default: the ISO week that just ended in the schedule's time zone. */
  week?: string;
  /** Compute and return the report; write, send and claim nothing. */
  dryRun?: boolean;
  /** The hourly schedule: nothing before the schedule's day and time have passed. */
  scheduled?: boolean;
  /**
   * Deliveries whose outcome is unknown, after a person checked the mail server's log: `resend` sends them again,
   * `confirm` records them as delivered without sending. Default: report them (exit 1), never resend.
   */
  unknownDeliveries?: 'resend' | 'confirm';
}

export type LicenseReportCounts = DeliveryCounts & {
  /** Keys in the registries, all products. */
  keys: number;
  /** Registry snapshots written by this run (0 when the week's are stored already). */
  snapshotsWritten: number;
  /** Unknown deliveries recorded as delivered with --confirm-unknown, without sending. */
  confirmed: number;
};

export interface LicenseReportResult extends JobResult<LicenseReportCounts> {
  /** `--dry-run`: what would be sent, and the figures. */
  preview?: { isoWeek: string; subject: string; text: string; figures: Record<string, RegistryFigures> };
}

/** Below Gmail's clipping limit (102 KB) with room for the headers Gmail counts. */
export const MAX_HTML_BYTES = 95_000;

export { licenseReportLedgerKey };

export async function runLicenseReport(
  config: PulseConfig,
  ports: LicenseReportPorts,
  opts: LicenseReportOptions = {},
): Promise<LicenseReportResult> {
  const result: LicenseReportResult = {
    job: 'license-report',
    ok: true,
    counts: {
      sent: 0,
      skippedAlreadySent: 0,
      failed: 0,
      sentUnconfirmed: 0,
      unknown: 0,
      inProgressElsewhere: 0,
      confirmed: 0,
      suppressed: 0,
      keys: 0,
      snapshotsWritten: 0,
    },
    outputs: [],
    errors: [],
  };
  const fail = (error: string) => {
    result.ok = false;
    result.errors.push(error);
  };
  const licenses = config.licenses;
  const report = licenses?.report;
  if (!licenses || !report) {
    fail('no licenses.report in the config: nothing to report');
    return result;
  }
  if (!ports.archive) {
    fail('the license report needs the archive (config "archive"): its snapshots and last week’s figures live there');
    return result;
  }
  try {
    await runReport(config, licenses, report, { ...ports, archive: ports.archive }, opts, result, fail);
  } catch (e) {
    fail(`${(e as Error).name}: ${(e as Error).message}`);
    ports.logger.error('license report failed', { error: (e as Error).message });
  }
  return result;
}

type Report = NonNullable<LicensesConfig['report']>;

async function runReport(
  config: PulseConfig,
  licenses: LicensesConfig,
  report: Report,
  ports: LicenseReportPorts & { archive: ArchiveStore },
  opts: LicenseReportOptions,
  result: LicenseReportResult,
  fail: (error: string) => void,
): Promise<void> {
  const now = ports.clock.now();
  const zone = report.schedule.timeZone;
  const { week, stillRunningInUtc } = reportWeek(now, zone, opts.week);
  if (opts.scheduled && (stillRunningInUtc || !isDue(now, report.schedule))) {
    ports.logger.info('license report not due yet', { isoWeek: week.isoWeek });
    return;
  }
  const recipients: { address: string; resend: boolean }[] = [];
  const unknown: UnknownDelivery[] = [];
  const channels = channelsNamed(config.channels, report.channels);
  const targets = [
    ...(report.recipients ?? [licenses.owner]),
    ...channels.map((c) => ({ address: channelAddress(c.id) })),
  ];
  for (const r of targets) {
    const key = licenseReportLedgerKey(week.isoWeek, r.address);
    const record = await ports.ledger.get(key);
    if (record?.state === 'done') result.counts.skippedAlreadySent++;
    else if (record?.state === 'in-progress') result.counts.inProgressElsewhere++;
    else if (record?.state !== 'unknown') recipients.push({ address: r.address, resend: false });
    else if (opts.dryRun || !opts.unknownDeliveries) {
      const error =
        `a send started ${record.claimedAt} may or may not have gone out (${record.reason}); not sent again. Check ` +
        `the mail server's log, then run \`pulse licenses report --week ${week.isoWeek} --resend-unknown\` (not ` +
        'delivered) or `--confirm-unknown` (delivered)';
      const label = targetLabel(r.address, config.channels);
      tallyDelivery(result, { outcome: 'unknown', error }, `license report ${week.isoWeek} to ${label}`);
      unknown.push({ address: r.address, label, claimedAt: record.claimedAt, reason: record.reason });
    } else if (opts.unknownDeliveries === 'confirm') await confirmDelivered(ports, key, result);
    else recipients.push({ address: r.address, resend: true });
  }
  if (!opts.dryRun) await tellOwner(config, licenses, report, week.isoWeek, unknown, ports, fail);
  if (recipients.length === 0 && !opts.dryRun) return;

  const prefix = archivePrefixOf(config);
  // The registry can only be read as it is now: a past week comes from its stored figures, or not at all.
  const live = week.isoWeek === lastCompleteIsoWeek(now, zone).isoWeek || stillRunningInUtc;
  const products: ProductReport[] = [];
  const names = new Map(config.products.map((p) => [p.id, p.name ?? `Product ${p.id}`]));
  for (const productId of licenses.productIds ?? config.products.map((p) => p.id)) {
    const snap = await productSnapshot(
      {
        productId,
        prefix,
        date: week.stop,
        isoWeek: week.isoWeek,
        rules: {
          today: localDateTime(now, zone).date,
          trialTypes: licenses.trialTypes,
          blockedSeenWithinDays: licenses.inUse.blockedSeenWithinDays,
        },
        concurrency: config.service.concurrency,
        takenAt: now.toISOString(),
        dryRun: opts.dryRun === true,
        live,
      },
      { client: ports.client, store: ports.archive, logger: ports.logger },
    );
    for (const p of snap.problems) fail(p);
    result.counts.keys += snap.stored.figures.keys;
    if (snap.written) {
      result.counts.snapshotsWritten++;
      result.outputs.push(snap.stored.snapshot.key);
    }
    products.push({ name: names.get(productId) ?? `Product ${productId}`, ...snap });
  }

  const base = reportArchivePrefix(prefix, week.isoWeek);
  const stored = opts.dryRun ? null : await ports.archive.linkTo(reportBrowserCopyKey(base));
  // Only a link a mail reader can open (an s3:// address without a public base URL is not one).
  const link = stored && /^https?:\/\//.test(stored) ? stored : null;
  let email = renderLicenseReportEmail(licenseReportView(report.title, week, products, link));
  // Gmail clips a message above ~102 KB: many products get the compact view (all figures stay in the archive).
  if (Buffer.byteLength(email.html) > MAX_HTML_BYTES)
    email = renderLicenseReportEmail(licenseReportView(report.title, week, products, link, { compact: true }));
  const subject = subjectOf(report.title, week, products);
  if (opts.dryRun) {
    const figures = Object.fromEntries(products.map((p) => [p.stored.productId, p.stored.figures]));
    result.preview = { isoWeek: week.isoWeek, subject, text: email.text, figures };
    return;
  }
  result.outputs.push(
    ...(await archiveLicenseReport(ports.archive, base, { ...email, products: products.map((p) => p.stored) })),
  );
  const newlyUnknown: UnknownDelivery[] = [];
  const posted = licenseReportChannelMessage(licenseReportView(report.title, week, products, link), products, {
    isoWeek: week.isoWeek,
    subject,
    now,
  });
  for (const { address: to, resend } of recipients) {
    const key = licenseReportLedgerKey(week.isoWeek, to);
    const label = targetLabel(to, config.channels);
    const channel = channels.find((c) => channelAddress(c.id) === to);
    if (channel) {
      const sent = await postOnce(ports, key, channel, posted, resend ? { resendUnknown: true } : {});
      tallyDelivery(result, sent, `license report ${week.isoWeek} to ${label}`);
      const at = ports.clock.now().toISOString();
      if (sent.outcome === 'unknown')
        newlyUnknown.push({ address: to, label, claimedAt: at, reason: sent.error ?? '' });
      continue;
    }
    const message: MailMessage = {
      from: config.mail.from,
      to,
      subject,
      html: email.html,
      text: email.text,
      headers: { 'X-Pulse-License-Report': week.isoWeek },
    };
    const sent = await deliverOnce(ports, key, message, resend ? { resendUnknown: true } : {});
    tallyDelivery(result, sent, `license report ${week.isoWeek} to ${to}`);
    if (sent.outcome === 'unknown') {
      newlyUnknown.push({ address: to, claimedAt: ports.clock.now().toISOString(), reason: sent.error ?? '' });
    }
  }
  await tellOwner(config, licenses, report, week.isoWeek, newlyUnknown, ports, fail);
  if (result.errors.length > 0) ports.logger.warn('license report finished with errors', { errors: result.errors });
}

/** One notice to the owner (`licenses.owner`) per unknown delivery, at most once each; a failed notice is reported. */
async function tellOwner(
  config: PulseConfig,
  licenses: LicensesConfig,
  report: Report,
  isoWeek: string,
  unknown: UnknownDelivery[],
  ports: LicenseReportPorts,
  fail: (error: string) => void,
): Promise<void> {
  for (const u of unknown) {
    const problem = await noticeUnknownDelivery(
      ports,
      {
        ...licenseReportLabel(licenses, report.title, isoWeek),
        deliveryKey: licenseReportLedgerKey(isoWeek, u.address),
        from: config.mail.from,
        command: `pulse licenses report --week ${isoWeek}`,
        channels: noticeChannelsOf(config),
      },
      u,
    );
    if (problem) fail(`license report ${isoWeek}: ${problem}`);
  }
}

function subjectOf(title: string, week: IsoWeek, products: ProductReport[]): string {
  let keys = 0;
  let expiring = 0;
  let leaks = 0;
  for (const p of products) {
    keys += p.stored.figures.keys;
    expiring += p.stored.figures.expiring.within30;
    leaks += p.stored.figures.revenueLeaks.total;
  }
  const n = new Intl.NumberFormat('en-US');
  return `${title}, ${week.isoWeek}: ${n.format(keys)} keys, ${n.format(expiring)} expiring within 30 days, ${n.format(leaks)} revenue leaks`;
}
