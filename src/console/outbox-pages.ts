/**
 * The outbox pages: the list (newest first, with subject, recipient and time), one message as its reader sees it
 * (its `.html` in a sandboxed frame that runs no script), and the full-report pages. The frame's document is
 * served by `viewHeaders` with a CSP sandbox too, so it runs no script even when opened on its own.
 */
import { html, pathOf, type SafeHtml, table, when } from './html.ts';
import type { Outbox, OutboxMessage } from './outbox.ts';

export const messagePath = (name: string): string => pathOf('outbox', 'messages', name);
export const messageViewPath = (name: string): string => `${messagePath(name)}/view`;
export const messageRawPath = (name: string): string => `${messagePath(name)}/raw`;
export const reportPath = (name: string): string => pathOf('outbox', 'reports', name);
export const reportViewPath = (name: string): string => `${reportPath(name)}/view`;

/** The headers of a message's or report's own HTML: no script, nothing fetched but inline images and styles. */
export const VIEW_CSP =
  "sandbox; default-src 'none'; img-src data: cid:; style-src 'unsafe-inline'; font-src data:; base-uri 'none'; form-action 'none'";

export function outboxBody(outbox: Outbox): SafeHtml {
  if (outbox.messages.length === 0 && outbox.reports.length === 0) {
    return html`<p>The outbox is empty: no run has sent a message yet.</p>`;
  }
  const rows = outbox.messages.map((m) => [
    when(m.receivedAt),
    html`<a href="${messagePath(m.name)}">${m.subject}</a>`,
    m.to,
    m.kind,
  ]);
  const reports = outbox.reports.map(
    (r) =>
      html`<li><a href="${reportPath(r.name)}">${r.name}</a> <span class="muted">written ${when(r.modifiedAt)}</span></li>`,
  );
  return html`<p>${outbox.messages.length} message${outbox.messages.length === 1 ? '' : 's'} the local SMTP sink
received, newest first. Each opens as its reader sees it.</p>
${table('Messages', ['Received', 'Subject', 'To', 'What'], rows)}
<h2>Full reports</h2>
${reports.length > 0 ? html`<ul class="plain">${reports}</ul>` : html`<p class="muted">None.</p>`}`;
}

export function messageBody(m: OutboxMessage, reports: string[], text: string | undefined): SafeHtml {
  const reportLinks = reports.map((r, i) => html`${i > 0 ? ', ' : ''}<a href="${reportPath(r)}">${r}</a>`);
  return html`<dl class="meta">
<dt>To</dt><dd>${m.to}</dd>
<dt>From</dt><dd>${m.from}</dd>
<dt>Received</dt><dd>${when(m.receivedAt)}</dd>
<dt>What</dt><dd>${m.kind}${m.attachments > 0 ? `, ${m.attachments} inline images or attachments` : ''}</dd>
${reportLinks.length > 0 ? html`<dt>Full report</dt><dd>${reportLinks}</dd>` : ''}
</dl>
<p><a href="${messageRawPath(m.name)}">Download as sent (.eml)</a>${
    m.hasHtml ? html` · <a href="${messageViewPath(m.name)}">Open on its own</a>` : ''
  }</p>
${
  m.hasHtml
    ? html`<iframe class="message" sandbox src="${messageViewPath(m.name)}" title="${`The message “${m.subject}” as its reader sees it`}"></iframe>`
    : html`<pre class="mono">${text ?? ''}</pre>`
}`;
}

export function reportBody(name: string, modifiedAt: string): SafeHtml {
  return html`<p>A full report page written beside the messages (<code>${name}.html</code>, ${when(modifiedAt)}); its
messages link to it. <a href="${reportViewPath(name)}">Open it on its own</a>.</p>
<iframe class="message" sandbox src="${reportViewPath(name)}" title="${`The full report ${name}`}"></iframe>`;
}
