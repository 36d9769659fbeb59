/**
 * `pulse digest --preview`: renders the digest exactly as it would be sent — through a writer that produces the
 * .eml and .html instead of a transport, with the full report page beside them — without touching the ledger or the
 * archive. A failed guard is shown as
 * the "data incomplete" banner, so the preview explains itself. `--send-to` sends one copy to that address only.
 */

import type { PulseConfig } from '../config/schema.ts';
import { reportWeek } from '../core/calendar.ts';
import { previewDeliveryKey } from '../core/delivery/ledger-keys.ts';
import type { JobResult } from '../core/job-result.ts';
import type { JobPorts } from '../ports/job-ports.ts';
import type { Mailer } from '../ports/mailer.ts';
import type { ReportPages } from '../ports/report-pages.ts';
import { prepareDigest } from './prepare.ts';
import { messageFor, reportPageName } from './run-digest.ts';

export interface PreviewOptions {
  digestIds?: string[];
  week?: string;
  /** Where the .eml/.html go (a PreviewWriter: images inline in the .html); its `written` paths are the outputs. */
  writer: Mailer & { written: string[] };
  /** Where the full report pages go (next to the .eml), linked from the email's "view in browser". */
  pages: ReportPages;
  sendTo?: string;
}

export async function previewDigest(
  config: PulseConfig,
  ports: Pick<JobPorts, 'client' | 'clock' | 'mailer'>,
  opts: PreviewOptions,
): Promise<JobResult<{ previewed: number; sent: number }>> {
  const result = {
    job: 'digest',
    ok: true,
    counts: { previewed: 0, sent: 0 },
    outputs: [] as string[],
    errors: [] as string[],
  };
  const digests = config.digests.filter((d) => !opts.digestIds || opts.digestIds.includes(d.id));
  if (digests.length === 0) return { ...result, ok: false, errors: ['no digest matches'] };
  const now = ports.clock.now();
  for (const digest of digests) {
    const { week } = reportWeek(now, digest.schedule.timeZone, opts.week);
    const page = reportPageName(digest.id, week.isoWeek);
    const prepared = await prepareDigest(config, digest, ports.client, week, {
      now,
      force: true,
      viewInBrowserUrl: opts.pages.linkTo(page),
    });
    result.outputs.push(await opts.pages.write(page, prepared.report));
    if (!prepared.guard.ok)
      result.errors.push(`${digest.id} ${week.isoWeek} would be held: ${prepared.guard.reasons.join('; ')}`);
    const message = messageFor(config, digest, prepared, opts.sendTo ?? digest.recipients[0]!.address);
    await opts.writer.send(message);
    result.counts.previewed++;
    if (opts.sendTo) {
      // Not a delivery (sent on every --send-to, no ledger record), but named, so a bounce of it reads as Pulse's.
      await ports.mailer.send({ ...message, delivery: previewDeliveryKey(digest.id, week.isoWeek, opts.sendTo) });
      result.counts.sent++;
    }
  }
  result.outputs.push(...opts.writer.written);
  result.ok = result.errors.length === 0;
  return result;
}
