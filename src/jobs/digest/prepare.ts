/**
 * One digest for one week, ready to send: every report collected over one session, figures, highlights, the view,
 * the rendered charts and email, and the guard's verdict. Pure of side effects except the service calls, so send,
 * preview and dry-run all share it.
 */
import { CHART_CHROME, isBlank, renderChart } from '../../charts/index.ts';
import type { ReportingClient } from '../../client/index.ts';
import type { DigestConfig, PulseConfig } from '../../config/schema.ts';
import type { MailAttachment } from '../../ports/mailer.ts';
import { renderDigestEmail } from '../../render/index.ts';
import { buildDigestView } from './build-view.ts';
import { collectDigestData } from './collect.ts';
import type { DigestData } from './data.ts';
import { computeFigures, type DigestFigures } from './figures.ts';
import { checkDigest, type GuardResult } from './guard.ts';
import { computeHighlights } from './highlights.ts';
import type { DigestView } from './view-model.ts';
import type { IsoWeek } from './week.ts';

export interface PreparedDigest {
  week: IsoWeek;
  data: DigestData;
  figures: DigestFigures;
  view: DigestView;
  html: string;
  text: string;
  /** Inline PNGs referenced by `cid:` in the HTML. */
  images: (MailAttachment & { content: Uint8Array })[];
  guard: GuardResult;
}

export interface PrepareOptions {
  now: Date;
  /** "Data incomplete: …" banner text when the digest is forced through a failed guard. */
  force: boolean;
  viewInBrowserUrl: string | null;
}

export async function prepareDigest(
  config: PulseConfig,
  digest: DigestConfig,
  client: ReportingClient,
  week: IsoWeek,
  opts: PrepareOptions,
): Promise<PreparedDigest> {
  const data = await client.withSession((c) =>
    collectDigestData(c, digest.productIds, week, {
      daysUntilDeclaredLost: digest.thresholds.daysUntilDeclaredLost,
      concurrency: config.service.concurrency,
      sections: digest.sections,
    }),
  );
  const names = Object.fromEntries(config.products.flatMap((p) => (p.name ? [[p.id, p.name]] : [])));
  const figures = computeFigures(data, { names });
  const highlights = computeHighlights(figures, { notableChangePercent: digest.thresholds.notableChangePercent });
  const build = (banner: string | null) =>
    buildDigestView(figures, highlights, {
      title: digest.title,
      banner,
      viewInBrowserUrl: opts.viewInBrowserUrl,
      generatedAt: opts.now,
      timeZone: digest.schedule.timeZone,
    });
  let built = build(null);
  const charts = built.charts.map(({ cid, spec }) => ({ cid, ...renderChart(spec) }));
  const guard = checkDigest(data, figures, {
    implausibleFactor: digest.thresholds.implausibleFactor,
    // The service counts in UTC days, so "today" for completeness is the UTC date of now.
    serviceToday: opts.now.toISOString().slice(0, 10),
    charts: charts.map((c) => ({ id: c.cid, blank: isBlank(c.png, { ignore: CHART_CHROME }) })),
  });
  if (!guard.ok && opts.force) built = build(`Data incomplete: ${guard.reasons.join('; ')}`);
  const { html, text } = renderDigestEmail(built.view);
  const images = charts.map((c) => ({ filename: c.cid, content: c.png, contentType: 'image/png', cid: c.cid }));
  return { week, data, figures, view: built.view, html, text, images, guard };
}

/** The subject line: the title and the week, marked when forced through the guard. */
export function subjectOf(p: PreparedDigest): string {
  return `${p.view.title} · ${p.view.weekLabel}${p.view.banner ? ' · data incomplete' : ''}`;
}
