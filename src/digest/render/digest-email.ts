/**
 * The digest email from a DigestView: HTML from the compiled templates/digest.mjml (filled by the escaping templater)
 * and the plain-text part from the same view. No mjml here: `npm run build:templates` compiled it beforehand.
 */

import { loadTemplate } from '../../core/render/compiled-templates.ts';
import type { RenderedEmail } from '../../core/render/rendered-email.ts';
import type { DigestView } from '../view-model.ts';
import { digestModel } from './digest-model.ts';
import { digestText } from './digest-text.ts';

export type { RenderedEmail };

/**
 * `compiledHtml` replaces templates/compiled/digest.html (a bundle that inlines the template, a test); without it the
 * file is read once per process, and a missing file throws TemplateMissingError saying how to restore it.
 */
export function renderDigestEmail(view: DigestView, compiledHtml?: string): RenderedEmail {
  const model = digestModel(view);
  return { html: loadTemplate('digest', compiledHtml).render(model), text: digestText(model) };
}
