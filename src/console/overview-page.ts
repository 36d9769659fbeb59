/** The console's first page: one card per part of the work directory, with what needs a look first. */
import type { ArchiveState } from './archive-state.ts';
import { html, type SafeHtml, when } from './html.ts';
import type { Delivery } from './ledger-entries.ts';
import type { Outbox } from './outbox.ts';
import { messagePath } from './outbox-pages.ts';

export interface Overview {
  outbox: Outbox | Error;
  archive: ArchiveState | Error;
  ledger: Delivery[] | Error;
}

export function overviewBody(o: Overview): SafeHtml {
  return html`<ul class="cards">
<li><h2><a href="/outbox">Outbox</a></h2>${outboxCard(o.outbox)}</li>
<li><h2><a href="/archive">Archive</a></h2>${archiveCard(o.archive)}</li>
<li><h2><a href="/ledger">Ledger</a></h2>${ledgerCard(o.ledger)}</li>
<li><h2><a href="/licenses">License alerts</a></h2>${licensesCard(o.ledger)}</li>
</ul>`;
}

const unreadable = (e: Error) => html`<p><span class="badge bad">unreadable</span> ${e.message}</p>`;
const plural = (n: number, word: string, words = `${word}s`) => `${n} ${n === 1 ? word : words}`;

function outboxCard(outbox: Outbox | Error): SafeHtml {
  if (outbox instanceof Error) return unreadable(outbox);
  const latest = outbox.messages[0];
  const digest = outbox.messages.find((m) => m.kind.startsWith('digest'));
  return html`<p>${plural(outbox.messages.length, 'message')}, ${plural(outbox.reports.length, 'full report')}.</p>
${latest ? html`<p>Latest: <a href="${messagePath(latest.name)}">${latest.subject}</a> to ${latest.to}, ${when(latest.receivedAt)}</p>` : ''}
${digest && digest !== latest ? html`<p>Latest digest: <a href="${messagePath(digest.name)}">${digest.subject}</a></p>` : ''}`;
}

function archiveCard(archive: ArchiveState | Error): SafeHtml {
  if (archive instanceof Error) return unreadable(archive);
  if (archive.prefixes.length === 0) return html`<p>No archive run yet.</p>`;
  return html`${archive.prefixes.map((p) => {
    const latest = p.runs[0];
    return html`<p>${p.chain.ok ? html`<span class="badge good">chain verified</span>` : html`<span class="badge bad">chain broken</span>`}
${plural(p.runs.length, 'run')}${latest?.manifest ? html`, the latest ${when(latest.manifest.finishedAt)}: ${latest.manifest.counts.archived ?? 0} archived, ${latest.manifest.counts.failed ?? 0} failed` : ''}.</p>`;
  })}`;
}

function ledgerCard(ledger: Delivery[] | Error): SafeHtml {
  if (ledger instanceof Error) return unreadable(ledger);
  const n = (s: string) => ledger.filter((d) => d.state === s).length;
  return html`<p>${plural(ledger.length, 'delivery', 'deliveries')}: ${n('done')} sent${
    n('unknown') > 0
      ? html`, <a href="/ledger?state=unknown"><strong>${n('unknown')} unknown</strong></a>`
      : ', none unknown'
  }${n('in-progress') > 0 ? `, ${n('in-progress')} in progress` : ''}.</p>`;
}

function licensesCard(ledger: Delivery[] | Error): SafeHtml {
  if (ledger instanceof Error) return unreadable(ledger);
  const alerts = ledger.filter((d) => d.alert !== undefined);
  const keys = new Set(alerts.map((d) => `${d.alert!.productId}#${d.alert!.licenseKey}`));
  return html`<p>${plural(alerts.length, 'alert')} for ${plural(keys.size, 'license key')}.</p>`;
}
