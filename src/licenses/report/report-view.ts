/** The weekly license registry report's email view, from each product's stored figures and last week's. */

import { type IsoWeek, weekLabel } from '../../core/calendar.ts';
import type { StoredFigures } from './registry-snapshot.ts';
import type { LicenseReportView } from './report-email.ts';
import { figureRows, type RegistryFigures, sumFigures } from './report-figures.ts';

export interface ProductReport {
  name: string;
  stored: StoredFigures;
  previous: RegistryFigures | undefined;
}

const COUNT = new Intl.NumberFormat('en-US');

export function licenseReportView(
  title: string,
  week: IsoWeek,
  products: ProductReport[],
  viewInBrowserUrl: string | null,
  opts: { compact?: boolean } = {},
): LicenseReportView {
  const allPrevious = products.every((p) => p.previous !== undefined);
  const total = sumFigures(products.map((p) => p.stored.figures));
  const previousTotal = allPrevious ? sumFigures(products.map((p) => p.previous!)) : undefined;
  const notes: string[] = [];
  const asOf = products[0]?.stored.takenAt.slice(0, 16).replace('T', ' ');
  if (asOf) notes.push(`The registry as read on ${asOf} UTC; changes are against the previous week's report.`);
  const missing = products.filter((p) => p.previous === undefined).map((p) => p.name);
  if (missing.length > 0)
    notes.push(
      `No report of the previous week for ${missing.join(', ')}: its changes, and those of all products, show from next week on.`,
    );
  if (products.some((p) => p.stored.comparedWith === null))
    notes.push('Trial conversions and losses need the previous week’s snapshot: “–” where there is none.');
  if (opts.compact)
    notes.push(
      'Per product only the overview and trials fit in an email: every figure of every product is in figures.json of this report in the archive.',
    );
  const sections = [
    {
      name: 'All products',
      isTotal: true,
      detail: `${products.length} product${products.length === 1 ? '' : 's'} · ${COUNT.format(total.keys)} keys`,
      rows: figureRows(total, previousTotal),
    },
    ...products.map((p) => ({
      name: p.name,
      isTotal: false,
      detail: `${p.stored.productId} · ${COUNT.format(p.stored.figures.keys)} keys · snapshot ${p.stored.date}`,
      rows: figureRows(p.stored.figures, p.previous).filter(
        (r) => !opts.compact || (r.group !== 'status' && r.group !== 'type'),
      ),
    })),
  ];
  return {
    title,
    weekLabel: weekLabel(week),
    notes,
    sections,
    viewInBrowserUrl,
    footer: 'Sent by Pulse · the registry snapshots are in the archive under license-registry/',
  };
}
