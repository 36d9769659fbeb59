/**
 * The archive pages: per bucket and prefix, the manifest chain's verdict, the runs (newest first) and the latest
 * run's coverage by product, kind and day; one run's page lists every file it saw with its outcome, SHA-256 and
 * version; the objects no manifest lists (the digests' records) by folder.
 */

import type { Coverage } from '../archive/coverage.ts';
import type { Manifest } from '../archive/manifest.ts';
import { addDays, shortDate } from '../core/calendar.ts';
import { type ArchivedPrefix, coverageOnDay, type DayCoverage } from './archive-state.ts';
import { badge, cell, html, notice, paged, type SafeHtml, table, when } from './html.ts';

/** Days of the day-by-day coverage table, ending the day before the run. */
const COVERAGE_DAYS = 14;

export const runPath = (p: Pick<ArchivedPrefix, 'bucket' | 'prefix'>, runId: string): string =>
  `/archive/run?${new URLSearchParams({ bucket: p.bucket, prefix: p.prefix, run: runId })}`;

export function archiveBody(prefixes: ArchivedPrefix[], buckets: string[]): SafeHtml {
  if (prefixes.length === 0) {
    return html`<p>No archive run yet${buckets.length > 0 ? html` in ${buckets.map((b) => html`<code>${b}</code> `)}` : ''}:
no manifest was found. <code>npm start</code> runs the archive.</p>`;
  }
  return html`${prefixes.map((p) => prefixSection(p, prefixes.length > 1))}`;
}

function prefixSection(p: ArchivedPrefix, named: boolean): SafeHtml {
  const where = html`bucket <code>${p.bucket}</code>${p.prefix ? html`, prefix <code>${p.prefix}</code>` : ''}`;
  const latest = p.runs[0];
  return html`${named ? html`<h2>${p.bucket}/${p.prefix}</h2>` : html`<p>${where}</p>`}
${chainNotice(p)}
<h2>Runs</h2>
${table(
  'Archive runs, newest first',
  ['Run', 'Finished', 'Complete', 'Archived', 'Already there', 'Failed', 'Rejected'],
  p.runs.map((r) => {
    const m = r.manifest;
    const c = m?.counts ?? {};
    return [
      cell(html`<a href="${runPath(p, r.runId)}">${r.runId}</a>`, 'nowrap'),
      m ? when(m.finishedAt) : html`<span class="badge bad">${r.problem ?? 'unreadable'}</span>`,
      m ? (m.complete ? 'yes' : html`<span class="badge bad">no</span>`) : '',
      cell(c.archived, 'num'),
      cell(c.skippedSame, 'num'),
      cell(c.failed, 'num'),
      cell(c.rejected, 'num'),
    ];
  }),
)}
${p.latestCoverage && latest ? coverageSection(p.latestCoverage, latest.manifest) : ''}
<h2>Other archived objects</h2>
<p>What no manifest lists: the digests' records and the license reports, by folder.${
    p.others.some((g) => g.objects.some((o) => o.versionId === undefined))
      ? ' The local S3 keeps no object versions, so Version reads “none” here; in AWS it is the S3 version id.'
      : ''
  }</p>
${
  p.others.length === 0
    ? html`<p class="muted">None.</p>`
    : p.others.map((g) =>
        table(
          `${g.folder || '(top level)'}: ${g.objects.length} object${g.objects.length === 1 ? '' : 's'}`,
          ['Key', 'Size', 'SHA-256', 'Version'],
          g.objects.map((o) => [
            html`<code>${o.key.slice(g.folder.length ? g.folder.length + 1 : 0)}</code>`,
            cell(o.size, 'num'),
            cell(o.sha256, 'hash'),
            version(o.versionId),
          ]),
        ),
      )
}`;
}

function chainNotice(p: ArchivedPrefix): SafeHtml {
  const { chain } = p;
  if (chain.ok) {
    return notice(
      'info',
      html`<p><strong>Manifest chain verified:</strong> ${chain.counts.manifests} manifest${
        chain.counts.manifests === 1 ? '' : 's'
      }, each linking to the one before it by SHA-256 (as <code>pulse archive --verify</code> checks it).</p>`,
    );
  }
  return notice(
    'error',
    html`<p><strong>Manifest chain broken:</strong> ${chain.counts.breaks} break${chain.counts.breaks === 1 ? '' : 's'}
in ${chain.counts.manifests} manifests.</p><ul class="plain">${chain.errors.map((e) => html`<li><code>${e}</code></li>`)}</ul>`,
  );
}

const version = (v: string | undefined): SafeHtml =>
  v ? html`<code>${v}</code>` : html`<span class="muted">none</span>`;

function coverageSection(c: Coverage, m: Manifest | undefined): SafeHtml {
  const runDay = (m?.startedAt ?? '').slice(0, 10) || c.runId.slice(0, 10);
  const days = Array.from({ length: COVERAGE_DAYS }, (_, i) => addDays(runDay, -(i + 1)));
  const products = [...new Set(c.kinds.map((k) => k.productId))];
  return html`<h2>Coverage after the latest run</h2>
${c.complete ? '' : notice('warn', html`<p>The run could not look at everything:</p><ul class="plain">${c.problems.map((x) => html`<li>${x}</li>`)}</ul>`)}
${products.map((productId) => {
  const kinds = c.kinds.filter((k) => k.productId === productId);
  const listed = kinds.filter((k) => k.status === 'listed');
  return html`<h3>Product ${productId}</h3>
${table(
  `Product ${productId}: files by kind`,
  ['Kind', 'Status', 'Archived', 'Span', 'Missing', 'Failed', 'Rejected'],
  kinds.map((k) => [
    k.kind,
    html`${k.status}${k.reason ? html`<br><span class="muted">${k.reason}</span>` : ''}`,
    cell(k.archived.length, 'num'),
    k.archived.length > 0
      ? html`<span class="nowrap">${k.archived[0]!.split('/')[0]} →</span> <span class="nowrap">${k.archived.at(-1)!.split('/').at(-1)}</span>`
      : '',
    k.missing.join(', '),
    k.failed.join(', '),
    k.rejected.join(', '),
  ]),
)}
${
  listed.length > 0
    ? table(
        `Product ${productId}: the last ${COVERAGE_DAYS} days by kind (a daily file, or a monthly file holding the day)`,
        ['Day', ...listed.map((k) => k.kind)],
        days.map((day) => [
          cell(html`<time datetime="${day}">${shortDate(day)}</time>`, 'nowrap'),
          ...listed.map((k) => dayCell(coverageOnDay(k, day))),
        ]),
        { stack: false, compact: true },
      )
    : ''
}`;
})}`;
}

const dayCell = (d: DayCoverage): SafeHtml =>
  d === 'none'
    ? html`<span class="muted" title="not listed">—<span class="hidden"> not listed</span></span>`
    : badge(d);

export function runBody(
  p: Pick<ArchivedPrefix, 'bucket' | 'prefix'>,
  runId: string,
  m: Manifest | undefined,
  problem: string | undefined,
  versions: Map<string, string | undefined>,
  coverage: Coverage | undefined,
  pageNumber: number,
): SafeHtml {
  if (!m) return notice('error', html`<p>Run ${runId}: ${problem ?? 'not found'}.</p>`);
  const files = paged(m.files, pageNumber, (n) => `${runPath(p, runId)}&page=${n}`);
  const counts = Object.entries(m.counts).map(([k, v]) => html`<li>${k}: ${v}</li>`);
  return html`<p><a href="/archive">All runs</a></p>
<dl class="meta">
<dt>Bucket</dt><dd><code>${p.bucket}</code></dd>
<dt>Prefix</dt><dd><code>${p.prefix}</code></dd>
<dt>Started</dt><dd>${when(m.startedAt)}</dd>
<dt>Finished</dt><dd>${when(m.finishedAt)}</dd>
<dt>Complete</dt><dd>${m.complete ? 'yes' : 'no'}</dd>
<dt>Previous manifest</dt><dd>${m.previous ? html`<code>${m.previous.key}</code><br><span class="mono">${m.previous.sha256}</span>` : 'none: the first run'}</dd>
</dl>
${m.problems.length + m.errors.length > 0 ? notice('warn', html`<ul class="plain">${[...m.problems, ...m.errors].map((e) => html`<li>${e}</li>`)}</ul>`) : ''}
<h2>Counts</h2>
<ul class="plain">${counts}</ul>
<h2>Files</h2>
<p>Each file the run saw, with its outcome and SHA-256 as the manifest records them.${
    m.files.some((f) => f.key !== undefined && versions.get(f.key) === undefined)
      ? ' The local S3 keeps no object versions, so Version reads “none” here.'
      : ''
  }</p>
${files.nav}
${table(
  `Files of run ${runId}`,
  ['Product', 'Kind', 'File', 'Outcome', 'Size', 'SHA-256', 'Version'],
  files.rows.map((f) => [
    f.productId,
    f.kind,
    html`<code>${f.key ?? f.fileName}</code>`,
    html`${badge(f.outcome)}${f.reason ? html`<br><span class="muted">${f.reason}</span>` : ''}`,
    cell(f.size, 'num'),
    cell(f.sha256, 'hash'),
    f.key ? version(versions.get(f.key)) : '',
  ]),
)}
${coverage ? coverageSection(coverage, m) : ''}`;
}
