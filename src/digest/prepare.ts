/**
 * One digest for one week, ready to send: every report collected over one session, figures, highlights, the view,
 * the rendered charts, the email and the full report page, and the guard's verdict. Pure of side effects except the
 * service calls, so send, preview and dry-run all share it.
 */
import { isBlank, renderChart } from '../charts/index.ts';
import type { ReportingClient } from '../client/index.ts';
import type { DigestConfig, PulseConfig } from '../config/schema.ts';
import type { IsoWeek } from '../core/calendar.ts';
import type { MailAttachment } from '../ports/mailer.ts';
import { buildDigestView } from './build-view.ts';
import { collectDigestData } from './collect.ts';
import type { DigestData } from './data.ts';
import { computeFigures, type DigestFigures } from './figures.ts';
import { checkDigest, type GuardResult } from './guard.ts';
import { computeHighlights } from './highlights.ts';
import { renderDigestEmail } from './render/digest-email.ts';
import { renderDigestReport } from './render/digest-report.ts';
import type { DigestView } from './view-model.ts';

export interface PreparedDigest {
  week: IsoWeek;
  data: DigestData;
  figures: DigestFigures;
  view: DigestView;
  html: string;
  text: string;
  /** Inline PNGs referenced by `cid:` in the HTML: the charts the email shows. */
  images: (MailAttachment & { content: Uint8Array })[];
  /** Every chart of the digest by cid (the email's and the full report's). */
  charts: ReadonlyMap<string, Uint8Array>;
  /** The full report: one self-contained HTML page (images inline), the "view in browser" target. */
  report: string;
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
  const { data, user } = await client.withSession(async (c) => {
    const collected = await collectDigestData(c, digest.productIds, week, {
      daysUntilDeclaredLost: digest.thresholds.daysUntilDeclaredLost,
      concurrency: config.service.concurrency,
      sections: digest.sections,
    });
    // A 404 may be a product the user cannot see: the guard then names the user.
    const named = collected.calls.some((call) => call.error?.status === 404) ? await signedInUser(c) : undefined;
    return { data: collected, user: named };
  });
  const names = Object.fromEntries(config.products.flatMap((p) => (p.name ? [[p.id, p.name]] : [])));
  const figures = computeFigures(data, { names });
  const notable = { notableChangePercent: digest.thresholds.notableChangePercent };
  const highlights = computeHighlights(figures, notable);
  const build = (banner: string | null) =>
    buildDigestView(figures, highlights, {
      title: digest.title,
      banner,
      viewInBrowserUrl: opts.viewInBrowserUrl,
      generatedAt: opts.now,
      timeZone: digest.schedule.timeZone,
      notable,
    });
  let built = build(null);
  // One at a time: each render is CPU-bound work on the one renderer; interleaving would only hold more images.
  const charts = new Map<string, Uint8Array>();
  for (const { cid, spec } of built.charts) charts.set(cid, (await renderChart(spec)).png);
  const guard = checkDigest(data, figures, {
    implausibleFactor: digest.thresholds.implausibleFactor,
    // The service counts in UTC days, so "today" for completeness is the UTC date of now.
    serviceToday: opts.now.toISOString().slice(0, 10),
    charts: [...charts].map(([cid, png]) => ({ id: cid, blank: isBlank(png) })),
    caller: { user, service: config.service.baseUrl },
  });
  if (!guard.ok && opts.force) built = build(`Data incomplete: ${guard.reasons.join('; ')}`);
  const { html, text } = renderDigestEmail(built.view);
  const emailCids = new Set(built.view.products.filter((p) => !p.isTotal).flatMap((p) => p.emailCharts));
  const images = [...charts]
    .filter(([cid]) => emailCids.has(cid))
    .map(([cid, png]) => ({ filename: cid, content: png, contentType: 'image/png', cid }));
  const report = renderDigestReport(built.view, charts);
  return { week, data, figures, view: built.view, html, text, images, charts, report, guard };
}

/**
 * The signed-in user's address from the session's sign-in answer (no request: the session is open). Undefined when
 * the answer does not have the documented shape: naming the user must not fail the digest.
 */
async function signedInUser(client: ReportingClient): Promise<string | undefined> {
  try {
    return (await client.signIn()).account.email;
  } catch {
    return undefined;
  }
}

/** The subject line: the title and the week, marked when forced through the guard. */
export function subjectOf(p: PreparedDigest): string {
  return `${p.view.title} · ${p.view.weekLabel}${p.view.banner ? ' · data incomplete' : ''}`;
}
