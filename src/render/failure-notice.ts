/**
 * The owner's "digest held" notice: sent (at most once a day) when the guard stops a digest. Rendered from the
 * compiled templates/failure-notice.mjml, plus a plain-text part with the same content.
 */
import { loadTemplate } from './compiled-templates.ts';
import type { RenderedEmail } from './digest-email.ts';

export interface FailureNoticeView {
  digestId: string;
  /** The digest's title, "Weekly product digest". */
  digestTitle: string;
  /** "2026-W46" */
  isoWeek: string;
  /** One sentence per failed check: "dateRangeReport for 12345678901 failed: 503 Service Unavailable". */
  reasons: string[];
  /** When it was held, for people: "2026-11-16 08:00 Europe/Berlin". */
  heldAt: string;
  /** The command that sends anyway with the "Data incomplete" banner; null to leave the hint out. */
  forceCommand: string | null;
  footer: string;
}

export interface RenderedNotice extends RenderedEmail {
  subject: string;
}

export function renderFailureNotice(notice: FailureNoticeView, compiledHtml?: string): RenderedNotice {
  const subject = `Digest held: ${notice.digestTitle} (${notice.digestId}), ${notice.isoWeek}`;
  const intro = `The digest “${notice.digestTitle}” (${notice.digestId}) for ${notice.isoWeek} was not sent: a check before sending failed.`;
  const outcome = `Held at ${notice.heldAt}; no recipient was sent this week's digest.`;
  const reasons = notice.reasons.length > 0 ? notice.reasons : ['No reason was recorded.'];
  const html = loadTemplate('failure-notice', compiledHtml).render({
    title: 'Digest held',
    weekLabel: `${notice.digestTitle} · ${notice.isoWeek}`,
    preview: reasons[0]!,
    intro,
    reasons,
    outcome,
    forceCommand: notice.forceCommand,
    viewInBrowserUrl: null,
    footer: notice.footer,
  });
  const lines = [subject, '', intro, '', ...reasons.map((r) => `- ${r}`), '', outcome];
  if (notice.forceCommand)
    lines.push('', 'To send it anyway, with a visible "Data incomplete" banner, run:', `  ${notice.forceCommand}`);
  lines.push('', notice.footer);
  return { subject, html, text: `${lines.join('\n')}\n` };
}
