/**
 * The weekly digest job: for each configured digest, the ISO week that just ended, the recipients it is due for,
 * prepared once (one session, guarded), archived, then delivered exactly once per recipient. A held digest sends
 * the owner one failure notice a day. The same function runs in Lambda, in `pulse digest` and in tests.
 */
import type { ReportingClient } from '../../client/index.ts';
import type { DigestConfig, PulseConfig } from '../../config/schema.ts';
import type { ArchiveStore } from '../../ports/archive-store.ts';
import type { Clock } from '../../ports/clock.ts';
import type { Ledger } from '../../ports/ledger.ts';
import type { Logger } from '../../ports/logger.ts';
import type { Mailer } from '../../ports/mailer.ts';
import type { JobResult } from '../job-result.ts';
import { archiveDigest, browserCopyKey, digestArchivePrefix } from './archive-digest.ts';
import { deliverOnce, digestLedgerKey } from './deliver.ts';
import { sendFailureNotice } from './failure-notice.ts';
import { type PreparedDigest, prepareDigest, subjectOf } from './prepare.ts';
import { digestWeek, isDue } from './week.ts';

export interface DigestPorts {
  client: ReportingClient;
  mailer: Mailer;
  ledger: Ledger;
  /** Where sent digests are kept; absent = not archived (and no "view in browser" link). */
  archive: ArchiveStore | undefined;
  clock: Clock;
  logger: Logger;
}

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
}

export type DigestCounts = { sent: number; skippedAlreadySent: number; held: number; failed: number };

export async function runDigest(
  config: PulseConfig,
  ports: DigestPorts,
  opts: DigestRunOptions = {},
): Promise<JobResult<DigestCounts>> {
  const result: JobResult<DigestCounts> = {
    job: 'digest',
    ok: true,
    counts: { sent: 0, skippedAlreadySent: 0, held: 0, failed: 0 },
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
  ports: DigestPorts,
  opts: DigestRunOptions,
  result: JobResult<DigestCounts>,
): Promise<void> {
  const now = ports.clock.now();
  const { week, stillRunningInUtc } = digestWeek(now, digest.schedule.timeZone, opts.week);
  if (stillRunningInUtc && opts.scheduled) {
    // The schedule waits for the service's week to end; a run by hand takes the last complete week instead.
    ports.logger.info('digest week not complete in UTC yet', { digestId: digest.id });
    return;
  }
  const recipients = [];
  for (const r of digest.recipients) {
    if (opts.scheduled && !isDue(now, digest.schedule, r.timeZone)) continue;
    const done = await ports.ledger.get(digestLedgerKey(digest.id, week.isoWeek, r.address));
    if (done?.state === 'done') result.counts.skippedAlreadySent++;
    else recipients.push(r);
  }
  if (recipients.length === 0 && !opts.dryRun) return;

  const base = digestArchivePrefix(config.archive?.prefix ?? 'pulse', digest.id, week.isoWeek);
  const stored = ports.archive && !opts.dryRun ? await ports.archive.linkTo(browserCopyKey(base)) : null;
  // Only a link a mail reader can open (an s3:// address without a public base URL is not one).
  const link = stored && /^https?:\/\//.test(stored) ? stored : null;
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
  if (ports.archive) result.outputs.push(...(await archiveDigest(ports.archive, base, prepared)));
  for (const r of recipients) {
    const key = digestLedgerKey(digest.id, week.isoWeek, r.address);
    const sent = await deliverOnce(
      ports.ledger,
      ports.mailer,
      key,
      messageFor(config, digest, prepared, r.address),
      ports.logger,
    );
    if (sent.outcome === 'sent') result.counts.sent++;
    else if (sent.outcome === 'alreadySent') result.counts.skippedAlreadySent++;
    else {
      result.counts.failed++;
      fail(result, `${digest.id} ${week.isoWeek} to ${r.address}: ${sent.error}`);
    }
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
