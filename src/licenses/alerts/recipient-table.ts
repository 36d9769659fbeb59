/**
 * The dry run's table (`pulse licenses alerts --dry-run`): one row per email that would go out — recipient, whether
 * it is the alert email or a first run's summary, its alerts per stage, its total — and a total row. Rows and stage
 * columns come in the result's order (counts.ts `ordered`: most alerts first, stages in lifecycle order); only
 * stages with an alert get a column. Plain text for a terminal; `--json` has the same numbers as `recipients`.
 */
import type { RecipientCount } from './counts.ts';
import { byLifecycle, type Stage } from './stage.ts';

export function recipientTable(rows: RecipientCount[]): string[] {
  const stages = [...new Set(rows.flatMap((r) => Object.keys(r.stages) as Stage[]))].sort(byLifecycle);
  const header = ['recipient', 'email', ...stages, 'total'];
  const line = (r: RecipientCount) => [
    r.address,
    r.email,
    ...stages.map((s) => String(r.stages[s] ?? 0)),
    String(r.alerts),
  ];
  const sum = (f: (r: RecipientCount) => number) => String(rows.reduce((n, r) => n + f(r), 0));
  const total = ['total', '', ...stages.map((s) => sum((r) => r.stages[s] ?? 0)), sum((r) => r.alerts)];
  const table = [header, ...rows.map(line), total];
  const widths = header.map((_, i) => Math.max(...table.map((cells) => cells[i]!.length)));
  // Text columns (recipient, email) to the left, counts to the right.
  return table.map((cells) =>
    cells
      .map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
}
