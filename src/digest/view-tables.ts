/** The exact values of a product section as TableViews: text cells, numeric columns right-aligned. */

import { shortDate } from '../core/calendar.ts';
import type { Bin } from './data.ts';
import type { ProductFigures, ShareFigures } from './figures.ts';
import { countryName, formatCount, formatPercent, truncate } from './format.ts';
import { COHORT_WEEKS } from './plan.ts';
import type { TableView } from './view-model.ts';

type Column = [title: string, align: 'left' | 'right'];

/** A table without its anchor; `productTables` gives each its id under the section's anchor. */
type Table = Omit<TableView, 'id'> & { slug: string };

const table = (slug: string, title: string, columns: Column[], rows: string[][], emptyText: string): Table => ({
  slug,
  title,
  columns: columns.map(([c]) => c),
  rows,
  align: columns.map(([, a]) => a),
  emptyText,
});

const percentOrDash = (p: number | null) => (p === null ? '—' : formatPercent(p));

function activityTable(p: ProductFigures): Table[] {
  if (!p.activity) return [];
  // Newest first: this week on top.
  const rows = [...p.activity.series]
    .reverse()
    .map((w) => [`Week of ${shortDate(w.weekStart)}`, formatCount(w.new), formatCount(w.active), formatCount(w.lost)]);
  const cols: Column[] = [
    ['Week', 'left'],
    ['New', 'right'],
    ['Active', 'right'],
    ['Lost', 'right'],
  ];
  return [table('clients', 'Clients per week', cols, rows, 'No weekly data.')];
}

function retentionTable(p: ProductFigures): Table[] {
  if (!p.retention) return [];
  const rows = p.retention.points.map((pt) => [
    String(pt.period),
    formatCount(pt.engaged),
    formatCount(pt.lost),
    formatPercent(pt.engagedPercent),
  ]);
  const cols: Column[] = [
    ['Weeks since install', 'left'],
    ['Engaged', 'right'],
    ['Lost', 'right'],
    ['Still engaged', 'right'],
  ];
  const title = `Install cohorts of the last ${COHORT_WEEKS} weeks`;
  return [table('cohorts', title, cols, rows, `No clients installed in the last ${COHORT_WEEKS} weeks.`)];
}

const binTable = (
  slug: string,
  title: string,
  binTitle: string,
  countTitle: string,
  bins: Bin[] | null,
  empty: string,
) => {
  const nonZero = bins?.some((b) => b.count > 0) ?? false;
  const rows = nonZero ? bins!.map((b) => [b.label, formatCount(b.count)]) : [];
  return table(
    slug,
    title,
    [
      [binTitle, 'left'],
      [countTitle, 'right'],
    ],
    rows,
    empty,
  );
};

function churnTables(p: ProductFigures): Table[] {
  if (!p.churn) return [];
  const none = 'No clients were lost this week.';
  return [
    binTable('churn-days', 'Lost clients by lifetime active days', 'Active days', 'Lost clients', p.churn.days, none),
    binTable('churn-sessions', 'Lost clients by lifetime sessions', 'Sessions', 'Lost clients', p.churn.sessions, none),
    binTable(
      'churn-runtime',
      'Lost clients by lifetime runtime',
      'Runtime (h:mm)',
      'Lost clients',
      p.churn.runtime,
      none,
    ),
  ];
}

function usageTables(p: ProductFigures): Table[] {
  if (!p.usage) return [];
  const none = 'No active clients this week.';
  return [
    binTable(
      'active-days',
      'Active clients by active days this week',
      'Active days',
      'Clients',
      p.usage.activeDays,
      none,
    ),
    binTable('sessions', 'Active clients by sessions this week', 'Sessions', 'Clients', p.usage.sessions, none),
    binTable('runtime', 'Active clients by runtime this week', 'Runtime (h:mm)', 'Clients', p.usage.runtime, none),
  ];
}

function eventsTable(p: ProductFigures): Table[] {
  if (!p.topEvents) return [];
  const rows = p.topEvents.map((e) => [
    e.name,
    e.category ?? '—',
    formatCount(e.count),
    e.users === null ? '—' : formatCount(e.users),
  ]);
  const cols: Column[] = [
    ['Event', 'left'],
    ['Category', 'left'],
    ['Count', 'right'],
    ['Clients', 'right'],
  ];
  return [table('events', "Top events (lifetime use by this week's active clients)", cols, rows, 'No events tracked.')];
}

function shareTable(
  slug: string,
  title: string,
  what: string,
  share: ShareFigures | null,
  label: (s: string) => string,
) {
  if (!share) return [];
  const rows = share.rows.map((r) => [
    label(r.label),
    formatCount(r.active),
    formatPercent(r.percent),
    percentOrDash(r.previousPercent),
  ]);
  const cols: Column[] = [
    [what, 'left'],
    ['Active clients', 'right'],
    ['Share', 'right'],
    ['Last week', 'right'],
  ];
  return [table(slug, title, cols, rows, 'No active clients this week.')];
}

function exceptionsTable(p: ProductFigures): Table[] {
  const e = p.exceptions;
  if (!e) return [];
  const partial = e.coversWeek || e.oldestLine === null ? '' : ` (partial: lines from ${shortDate(e.oldestLine)} on)`;
  const rows = e.top.map((g) => [
    g.type,
    truncate(g.message, 120),
    formatCount(g.count),
    g.previousCount === null ? '—' : formatCount(g.previousCount),
  ]);
  const cols: Column[] = [
    ['Exception', 'left'],
    ['Message', 'left'],
    ['This week', 'right'],
    ['Last week', 'right'],
  ];
  return [table('exceptions', `Most frequent exceptions${partial}`, cols, rows, 'No exceptions this week.')];
}

/**
 * Tables in section order: activity, churn, engagement, top events, versions, countries, exceptions; each with its
 * anchor `<section anchor>-<table>` in the full report.
 */
export function productTables(p: ProductFigures, anchor: string): TableView[] {
  const tables = [
    ...activityTable(p),
    ...retentionTable(p),
    ...churnTables(p),
    ...usageTables(p),
    ...eventsTable(p),
    ...shareTable('versions', 'Versions', 'Version', p.versions, (v) => v),
    ...shareTable('countries', 'Top countries', 'Country', p.countries, countryName),
    ...exceptionsTable(p),
  ];
  return tables.map(({ slug, ...t }) => ({ id: `${anchor}-${slug}`, ...t }));
}
