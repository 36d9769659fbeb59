/**
 * Loads the HTML that `npm run build:templates` compiled from templates/*.mjml (or copied from templates/*.html) into
 * templates/compiled/ (committed, so a production install without mjml has it) and compiles it for the templater,
 * once per process. Run time never touches mjml. `PULSE_TEMPLATES_DIR` points elsewhere (a Lambda bundle that ships
 * the compiled HTML next to its handler); callers may also pass the HTML itself.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CompiledTemplate, compileTemplate } from './templater.ts';

export type TemplateName =
  | 'digest'
  | 'digest-report'
  | 'failure-notice'
  | 'license-alert'
  | 'license-report'
  | 'usage-alert';

export class TemplateMissingError extends Error {
  override name = 'TemplateMissingError';
}

const DEFAULT_DIR = fileURLToPath(new URL('../../../templates/compiled/', import.meta.url));
const fromFiles = new Map<string, CompiledTemplate>();
/** Compiled HTML handed in by callers, by content; small because a process uses one or two templates. */
const fromStrings = new Map<string, CompiledTemplate>();
const MAX_STRING_ENTRIES = 8;

export function templatesDir(): string {
  return process.env.PULSE_TEMPLATES_DIR || DEFAULT_DIR;
}

export function loadTemplate(name: TemplateName, compiledHtml?: string, dir = templatesDir()): CompiledTemplate {
  if (compiledHtml !== undefined) {
    let template = fromStrings.get(compiledHtml);
    if (!template) {
      template = compileTemplate(compiledHtml, name);
      if (fromStrings.size >= MAX_STRING_ENTRIES) fromStrings.delete(fromStrings.keys().next().value!);
      fromStrings.set(compiledHtml, template);
    }
    return template;
  }
  const file = join(dir, `${name}.html`);
  let template = fromFiles.get(file);
  if (!template) {
    let html: string;
    try {
      html = readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      throw new TemplateMissingError(
        `compiled template ${file} is missing: it ships in templates/compiled/ (restore it with ` +
          '`git checkout templates/compiled`), or run `npm run build:templates` where the dev dependencies are installed',
      );
    }
    template = compileTemplate(html, name);
    fromFiles.set(file, template);
  }
  return template;
}
