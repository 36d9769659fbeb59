/**
 * The weekly digest job: for each configured digest, the ISO week that just ended, the recipients it is due for,
 * prepared once (one session, guarded), archived, then delivered at most once per recipient (deliver-once.ts). A
 * held digest sends the owner one failure notice a day; a delivery whose outcome is unknown is reported (exit 1),
 * told to the owner once, and sent again only when someone asks (`unknownDeliveries: 'resend'`). The same function
 * runs in Lambda, in `pulse digest` and in tests.
 */

import type { ChannelConfig } from '../config/channels-schema.ts';
import { archivePrefixOf, type DigestConfig, type PulseConfig } from '../config/schema.ts';
import { isDue, reportWeek } from '../core/calendar.ts';
import { channelAddress, channelsNamed, targetLabel } from '../core/channels/channel-targets.ts';
import { postOnce } from '../core/channels/post-once.ts';
import { confirmDelivered } from '../core/delivery/confirm-delivered.ts';
import { deliverOnce } from '../core/delivery/deliver-once.ts';
import { tallyDelivery } from '../core/delivery/delivery-tally.ts';
import { digestLedgerKey } from '../core/delivery/ledger-keys.ts';
import type { UnknownDelivery } from '../core/delivery/unknown-delivery-notice.ts';
import { browserCopyKey, digestArchivePrefix } from '../core/digest-report.ts';
import type { JobResult } from '../core/job-result.ts';
import type { JobPorts } from '../ports/job-ports.ts';
import { archiveDigest, chartKey } from './archive-digest.ts';
import { digestChannelMessage } from './channel-message.ts';
import { type DigestCounts, emptyDigestCounts, noticeUnknownDigestDelivery } from './deliver.ts';
import { sendFailureNotice } from './failure-notice.ts';
import { type PreparedDigest, prepareDigest, subjectOf } from './prepare.ts';

export interface DigestRunOptions {
  /** Only these digest ids (`--digest`). */
  digestIds?: string[];
  /** `2026-W46`; default: the ISO week that just ended in each digest's schedule time zone. */
  week?: string;
  /** Lambda schedule: only recipients whose send time has passed, and only once the week is complete in UTC. */
  scheduled?: boolean;
  /** Send despite a failed guard, with a visible "data incomplete" banner. */
  force?: boolean;
  /** Prepare and check, but neither archive nor send nor touch the ledger. */
  dryRun?: boolean;
  /**
   * What to do with deliveries whose outcome is unknown (a person decided, after checking the mail server's log):
   * `resend` sends them again, `confirm` records them as delivered without sending. Default: report them.
   */
  unknownDeliveries?: 'resend' | 'confirm';
}

export type { DigestCounts } from './deliver.ts';

export async function runDigest(
  config: PulseConfig,
  ports: JobPorts,
  opts: DigestRunOptions = {},
): Promise<JobResult<DigestCounts>> {
  const result: JobResult<DigestCounts> = {
    job: 'digest',
    ok: true,
    counts: emptyDigestCounts(),
    outputs: [],
    errors: [],
  };
  const digests = config.digests.filter((d) => !opts.digestIds || opts.digestIds.includes(d.id));
  for (const id of opts.digestIds ?? []) if (!digests.some((d) => d.id === id)) fail(result, `unknown digest ${id}`);
  for (const digest of digests) {
    try {
      await runOne(config, digest, ports, opts, result);
    } catch (e) {
      fail(result, `${digest.id}: ${(e as Error).name}: ${(e as Error).message}`);
      ports.logger.error('digest run failed', { digestId: digest.id, error: (e as Error).message });
    }
  }
  return result;
}

function fail(result: JobResult, error: string): void {
  result.ok = false;
  result.errors.push(error);
}

async function runOne(
  config: PulseConfig,
  digest: DigestConfig,
  ports: JobPorts,
  opts: DigestRunOptions,
  result: JobResult<DigestCounts>,
): Promise<void> {
  const now = ports.clock.now();
  const { week, stillRunningInUtc } = reportWeek(now, digest.schedule.timeZone, opts.week);
  if (stillRunningInUtc && opts.scheduled) {
    // The schedule waits for the service's week to end; a run by hand takes the last complete week instead.
    ports.logger.info('digest week not complete in UTC yet', { digestId: digest.id });
    return;
  }
  const recipients: Recipient[] = [];
  const unknown: UnknownDelivery[] = [];
  for (const r of targetsOf(config, digest)) {
    if (opts.scheduled && !isDue(now, digest.schedule, r.timeZone)) continue;
    const key = digestLedgerKey(digest.id, week.isoWeek, r.address);
    const record = await ports.ledger.get(key);
    if (record?.state === 'done') result.counts.skippedAlreadySent++;
    else if (record?.state === 'in-progress') result.counts.inProgressElsewhere++;
    else if (record?.state !== 'unknown') recipients.push({ ...r, resend: false });
    else if (opts.dryRun || !opts.unknownDeliveries) {
      const label = `${digest.id} ${week.isoWeek} to ${targetLabel(r.address, config.channels)}`;
      tallyDelivery(result, { outcome: 'unknown', error: unknownLine(record, digest.id, week.isoWeek) }, label);
      unknown.push({ ...unknownOf(r.address, config), claimedAt: record.claimedAt, reason: record.reason });
    } else if (opts.unknownDeliveries === 'confirm') await confirmDelivered(ports, key, result);
    else recipients.push({ ...r, resend: true });
  }
  if (!opts.dryRun) await tellOwner(config, digest, week.isoWeek, unknown, ports, result);
  if (recipients.length === 0 && !opts.dryRun) return;

  const base = digestArchivePrefix(archivePrefixOf(config), digest.id, week.isoWeek);
  const page = reportPageName(digest.id, week.isoWeek);
  const link = opts.dryRun ? null : await reportLink(ports, base, page);
  const prepared = await prepareDigest(config, digest, ports.client, week, {
    now,
    force: opts.force === true,
    viewInBrowserUrl: link,
  });
  if (!prepared.guard.ok && !opts.force) {
    result.counts.held += recipients.length;
    fail(result, `${digest.id} ${week.isoWeek} held: ${prepared.guard.reasons.join('; ')}`);
    if (!opts.dryRun) await sendFailureNotice(config, digest, prepared, ports, now);
    return;
  }
  if (opts.dryRun) return;
  if (ports.pages) result.outputs.push(await ports.pages.write(page, prepared.report));
  if (ports.archive) result.outputs.push(...(await archiveDigest(ports.archive, base, prepared)));
  const newlyUnknown: UnknownDelivery[] = [];
  const posted = await channelMessageOf(digest, prepared, ports, base, link, now);
  for (const r of recipients) {
    const key = digestLedgerKey(digest.id, week.isoWeek, r.address);
    const again = r.resend ? { resendUnknown: true } : {};
    const sent = r.channel
      ? await postOnce(ports, key, r.channel, posted, again)
      : await deliverOnce(ports, key, messageFor(config, digest, prepared, r.address), again);
    tallyDelivery(result, sent, `${digest.id} ${week.isoWeek} to ${targetLabel(r.address, config.channels)}`);
    if (sent.outcome === 'unknown') {
      const at = ports.clock.now().toISOString();
      newlyUnknown.push({ ...unknownOf(r.address, config), claimedAt: at, reason: sent.error ?? '' });
    }
  }
  await tellOwner(config, digest, week.isoWeek, newlyUnknown, ports, result);
}

/** The full report's name among the local pages: one per digest and week. */
export const reportPageName = (digestId: string, isoWeek: string) => `digest-${digestId}-${isoWeek}`;

/** Where the email's "view in browser" points: the local page, else the archive's copy, else nowhere. */
async function reportLink(ports: JobPorts, base: string, page: string): Promise<string | null> {
  if (ports.pages) return ports.pages.linkTo(page);
  const stored = ports.archive ? await ports.archive.linkTo(browserCopyKey(base)) : null;
  // Only a link a mail reader can open (an s3:// address without a public base URL is not one).
  return stored && /^https?:\/\//.test(stored) ? stored : null;
}

interface Target {
  /** An email address, or a channel's `channel:<id>` (channel-targets.ts). */
  address: string;
  timeZone: string | undefined;
  channel?: ChannelConfig;
}

interface Recipient extends Target {
  /** Its earlier delivery is unknown and a person asked to send it again. */
  resend: boolean;
}

/** An unknown delivery's address, and how the owner's notice names it (a channel by its kind and id). */
const unknownOf = (address: string, config: PulseConfig) => ({ address, label: targetLabel(address, config.channels) });

/** The digest's email recipients, then its channels: each one delivery a week. */
function targetsOf(config: PulseConfig, digest: DigestConfig): Target[] {
  return [
    ...digest.recipients.map((r) => ({ address: r.address, timeZone: r.timeZone })),
    ...channelsNamed(config.channels, digest.channels).map((c) => ({
      address: channelAddress(c.id),
      timeZone: c.timeZone,
      channel: c,
    })),
  ];
}

/** The channel message of the digest, with its chart and full report when a person can open them. */
async function channelMessageOf(
  digest: DigestConfig,
  prepared: PreparedDigest,
  ports: JobPorts,
  base: string,
  link: string | null,
  now: Date,
) {
  const opens = (url: string | null | undefined) => (url && /^https?:\/\//.test(url) ? url : null);
  const headline = prepared.view.products[0];
  const cid = headline?.emailCharts[0];
  const chart = headline?.charts.find((c) => c.cid === cid);
  const chartUrl = chart && ports.archive ? opens(await ports.archive.linkTo(chartKey(base, chart.cid))) : null;
  return digestChannelMessage(
    digest,
    prepared,
    { report: opens(link), chart: chart && chartUrl ? { url: chartUrl, alt: chart.alt } : null },
    now,
  );
}

function unknownLine(record: { claimedAt: string; reason: string }, digestId: string, isoWeek: string): string {
  return (
    `a send started ${record.claimedAt} may or may not have gone out (${record.reason}); not sent again. ` +
    `Check the mail server's log, then run \`pulse digest --digest ${digestId} --week ${isoWeek} --resend-unknown\` ` +
    '(not delivered) or `--confirm-unknown` (delivered)'
  );
}

/** One notice to the owner per unknown delivery (at most once each); a notice that fails is reported too. */
async function tellOwner(
  config: PulseConfig,
  digest: DigestConfig,
  isoWeek: string,
  unknown: UnknownDelivery[],
  ports: JobPorts,
  result: JobResult<DigestCounts>,
): Promise<void> {
  for (const u of unknown) {
    const problem = await noticeUnknownDigestDelivery(config, digest, isoWeek, u, ports);
    if (problem) fail(result, problem);
  }
}

export function messageFor(config: PulseConfig, digest: DigestConfig, p: PreparedDigest, to: string) {
  return {
    from: config.mail.from,
    to,
    subject: subjectOf(p),
    html: p.html,
    text: p.text,
    attachments: p.images,
    headers: { 'X-Pulse-Digest': digest.id, 'X-Pulse-Week': p.week.isoWeek },
  };
}
