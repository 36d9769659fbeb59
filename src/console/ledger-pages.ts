/**
 * The ledger pages: every delivery (what, to whom, when, in which state; unknown ones first), filtered by state
 * and kind with plain links; and the license alerts' state per license key and stage, read from the same records.
 */

import { badge, cell, html, notice, paged, type SafeHtml, table, when } from './html.ts';
import type { Delivery, DeliveryKind } from './ledger-entries.ts';

const STATES = ['unknown', 'in-progress', 'done'] as const;
const KINDS: DeliveryKind[] = [
  'digest',
  'license alert',
  'license first run',
  'license report',
  'digest held notice',
  'other',
];

export interface LedgerFilter {
  state?: string | undefined;
  kind?: string | undefined;
  page?: string | undefined;
}

export const ledgerPath = (f: LedgerFilter): string => {
  const q = new URLSearchParams(Object.entries(f).filter(([, v]) => v !== undefined) as [string, string][]);
  return q.size > 0 ? `/ledger?${q}` : '/ledger';
};

export function ledgerBody(all: Delivery[], filter: LedgerFilter): SafeHtml {
  if (all.length === 0) return html`<p>The ledger is empty: nothing has been sent yet.</p>`;
  const shown = all.filter(
    (d) => (!filter.state || d.state === filter.state) && (!filter.kind || d.kind === filter.kind),
  );
  const page = paged(shown, Number(filter.page ?? 1), (n) => ledgerPath({ ...filter, page: String(n) }));
  const count = (pred: (d: Delivery) => boolean) => all.filter(pred).length;
  const unknown = count((d) => d.state === 'unknown');
  const choice = (label: string, f: LedgerFilter, n: number, current: boolean) =>
    html`<li><a href="${ledgerPath(f)}"${current ? html` aria-current="true"` : ''}>${label}</a> (${n})</li>`;
  return html`${
    unknown > 0
      ? notice(
          'warn',
          html`<p><strong>${unknown} deliver${unknown === 1 ? 'y is' : 'ies are'} unknown:</strong> the message may or may
not have gone out. Nothing resends them by itself: <code>--confirm-unknown</code> records them as sent,
<code>--resend-unknown</code> sends them again (docs/delivery.md).</p>`,
        )
      : ''
  }
<nav class="filters" aria-label="Filter by state"><p>State:</p><ul>
${choice('all', { ...filter, state: undefined, page: undefined }, all.length, !filter.state)}
${STATES.map((s) =>
  choice(
    s,
    { ...filter, state: s, page: undefined },
    count((d) => d.state === s),
    filter.state === s,
  ),
)}
</ul></nav>
<nav class="filters" aria-label="Filter by kind"><p>Kind:</p><ul>
${choice('all', { ...filter, kind: undefined, page: undefined }, all.length, !filter.kind)}
${KINDS.filter((k) => all.some((d) => d.kind === k)).map((k) =>
  choice(
    k,
    { ...filter, kind: k, page: undefined },
    count((d) => d.kind === k),
    filter.kind === k,
  ),
)}
</ul></nav>
${page.nav}
${table(
  `Deliveries${filter.state ? `, ${filter.state}` : ''}${filter.kind ? `, ${filter.kind}` : ''}: unknown first, then newest first`,
  ['State', 'Kind', 'What', 'To', 'When', 'Details'],
  page.rows.map((d) => [badge(d.state), d.kind, d.what, d.recipient, when(d.at), details(d)]),
)}`;
}

function details(d: Delivery): SafeHtml {
  return html`${d.reason ? html`<p>${d.reason}</p>` : ''}${d.messageId ? html`<code>${d.messageId}</code>` : ''}${
    d.mailEvents.length > 0 ? html`<ul class="plain">${d.mailEvents.map((e) => html`<li>${e}</li>`)}</ul>` : ''
  }`;
}

/** `before-60` … `before-1`, `expiry-day`, `after-1` … `after-30`, then the condition stages. */
export function stageOrder(a: string, b: string): number {
  const rank = (s: string): number => {
    const m = /^(before|after)-(\d+)$/.exec(s);
    if (m) return m[1] === 'before' ? -Number(m[2]) : Number(m[2]);
    return s === 'expiry-day' ? 0 : 10_000;
  };
  return rank(a) - rank(b) || a.localeCompare(b);
}

export function licensesBody(all: Delivery[], pageNumber: number): SafeHtml {
  const alerts = all.filter((d) => d.alert !== undefined);
  if (alerts.length === 0) return html`<p>No license alert has been sent yet.</p>`;
  const stages = [...new Set(alerts.map((d) => d.alert!.stage))].sort(stageOrder);
  const perStage = stages.map((stage) => {
    const of = alerts.filter((d) => d.alert!.stage === stage);
    const n = (s: string) => of.filter((d) => d.state === s).length;
    return [stage, cell(n('done'), 'num'), cell(n('unknown'), 'num'), cell(n('in-progress'), 'num')];
  });
  const byKey = new Map<string, Delivery[]>();
  for (const d of alerts) {
    const id = `${d.alert!.productId}\u0000${d.alert!.licenseKey}`;
    byKey.set(id, [...(byKey.get(id) ?? []), d]);
  }
  const keys = [...byKey.values()].sort((a, b) => {
    const unknown = (l: Delivery[]) => (l.some((d) => d.state !== 'done') ? 0 : 1);
    const x = a[0]!.alert!;
    const y = b[0]!.alert!;
    return (
      unknown(a) - unknown(b) || x.productId.localeCompare(y.productId) || x.licenseKey.localeCompare(y.licenseKey)
    );
  });
  const page = paged(keys, pageNumber, (n) => `/licenses?page=${n}`);
  const keyRows = page.rows.map((list) => {
    const a = list[0]!.alert!;
    const sorted = [...list].sort((x, y) => stageOrder(x.alert!.stage, y.alert!.stage));
    return [
      a.productId,
      html`<code>${a.licenseKey}</code>`,
      [...new Set(list.map((d) => d.alert!.expiryDate))].join(', '),
      html`<ul class="plain">${sorted.map((d) => html`<li>${d.alert!.stage}: ${badge(d.state)} to ${d.recipient}, ${when(d.at)}</li>`)}</ul>`,
    ];
  });
  return html`<p>${alerts.length} alert${alerts.length === 1 ? '' : 's'} for ${keys.length} license key${
    keys.length === 1 ? '' : 's'
  }: each (key, stage, expiry date, recipient) is sent once; a renewed key (new expiry date) starts its stages again.</p>
${table('Alerts by stage and state', ['Stage', 'Sent', 'Unknown', 'In progress'], perStage, { stack: false, compact: true })}
${page.nav}
${table('License keys: each stage alerted, its state, recipient and time (keys with an open alert first)', ['Product', 'License key', 'Expiry', 'Stages'], keyRows)}`;
}
