/**
 * The digest's full report page from a DigestView: one self-contained HTML file (the "view in browser" link,
 * archived as one object and written beside the local .eml), filled into templates/digest-report.html. Every chart
 * is inline as a data: PNG, looked up by its cid in `images`; a chart without its image shows its alt text instead.
 */

import { loadTemplate } from '../../core/render/compiled-templates.ts';
import type { DigestView } from '../view-model.ts';
import { digestReportModel } from './digest-report-model.ts';

/**
 * `images` holds the PNG of each chart by cid (the same bytes the email attaches). `compiledHtml` replaces
 * templates/compiled/digest-report.html (a bundle that inlines the template, a test); without it the file is read once
 * per process, and a missing file throws TemplateMissingError saying how to restore it.
 */
export function renderDigestReport(
  view: DigestView,
  images: ReadonlyMap<string, Uint8Array>,
  compiledHtml?: string,
): string {
  return loadTemplate('digest-report', compiledHtml).render(digestReportModel(view, images));
}
