/**
 * `npm run build:templates`: compiles every templates/*.mjml (partials live in templates/partials/ and are pulled in
 * with mj-include) to templates/compiled/<name>.html, and copies every templates/*.html (plain web pages, not emails:
 * the digest's full report) there without its source comments and indentation. Strict MJML validation; any MJML
 * error, or output the run-time templater cannot compile (a marker mjml mangled, a placeholder in the wrong HTML
 * context), fails the build with a non-zero exit code. This is the only place mjml is used: run time reads the HTML.
 *
 * templates/compiled/ is committed: a production install (`npm ci --omit=dev`, no mjml) renders from it as it is.
 * `npm run build:templates -- --check` (and a test in `npm test`) fails when it no longer matches its sources.
 */
import { mkdir, readdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileTemplate } from '../src/core/render/templater.ts';

interface MjmlResult {
  html: string;
  errors: { formattedMessage: string }[];
}
type Mjml2Html = (mjml: string, options: Record<string, unknown>) => Promise<MjmlResult>;

// mjml ships CommonJS without type declarations.
const mjml2html = createRequire(import.meta.url)('mjml') as Mjml2Html;

export const TEMPLATES_DIR = fileURLToPath(new URL('../templates/', import.meta.url));
export const COMPILED_DIR = fileURLToPath(new URL('../templates/compiled/', import.meta.url));

/** Comments that are neither Outlook conditionals nor templater markers: source comments, dropped from the output. */
const SOURCE_COMMENT = /<!--(?!\[if|<!\[endif|>|\s*\[\[)[\s\S]*?-->/g;

/** Juice writes inlined styles as `a: b; c: d;`; repeated on every table cell, those spaces add up. */
const STYLE_ATTRIBUTE = /style="([^"]*)"/g;
const compactStyle = (attr: string, css: string) =>
  css.includes('url(')
    ? attr
    : `style="${css
        .replace(/\s*;\s*/g, ';')
        .replace(/\s*:\s*/g, ':')
        .replace(/;$/, '')}"`;

/** Compiles one MJML file to HTML and checks that the templater accepts the result. */
export async function compileMjmlFile(file: string): Promise<string> {
  const source = await readFile(file, 'utf8');
  const result = await mjml2html(source, {
    validationLevel: 'strict',
    filePath: file,
    ignoreIncludes: false,
    includePath: dirname(file), // mj-include may only read the template's own folder
    keepComments: true, // the templater's block markers are comments
    minify: true, // keeps the email well below Gmail's 102 KB clipping limit
    minifyOptions: { minifyCss: false },
    fonts: {}, // web-safe fonts only: no Google Fonts links
    // Without these juice copies inline CSS into width/height/align attributes, including our placeholders.
    juiceOptions: { applyWidthAttributes: false, applyHeightAttributes: false, applyAttributesTableElements: false },
  });
  if (result.errors.length > 0) throw new Error(result.errors.map((e) => e.formattedMessage).join('\n'));
  const html = result.html.replace(SOURCE_COMMENT, '').replace(STYLE_ATTRIBUTE, compactStyle);
  compileTemplate(html, basename(file, '.mjml'));
  return html;
}

/** A block marker alone on its line (`<!--[[#each xs]]-->`): the line break after it would repeat with every item. */
const MARKER_LINE_END = /(<!--\s*\[\[[^\]]*\]\]\s*-->)\n/g;

/**
 * A plain HTML template (a web page): source comments, each line's indentation, blank lines and the line breaks after
 * block markers dropped, then checked by the templater like a compiled MJML file. Nothing else is touched, so what
 * the source says is what the page is.
 */
export async function compileHtmlFile(file: string): Promise<string> {
  const source = await readFile(file, 'utf8');
  const html = source
    .replace(SOURCE_COMMENT, '')
    .replace(/^[ \t]+/gm, '')
    .replace(MARKER_LINE_END, '$1')
    .replace(/\n{2,}/g, '\n');
  compileTemplate(html, basename(file, '.html'));
  return html;
}

const TEMPLATE = /\.(mjml|html)$/;

/** Compiles every top-level template of `srcDir` in memory: output file name → HTML, by name. */
export async function compileTemplates(srcDir = TEMPLATES_DIR): Promise<Map<string, string>> {
  const names = (await readdir(srcDir)).filter((f) => TEMPLATE.test(f)).sort();
  if (names.length === 0) throw new Error(`no .mjml or .html templates in ${srcDir}`);
  const twice = names.find((n, i) => names.findIndex((m) => m.replace(TEMPLATE, '') === n.replace(TEMPLATE, '')) < i);
  if (twice) throw new Error(`${twice}: another template in ${srcDir} has the same name`);
  const out = new Map<string, string>();
  for (const name of names) {
    const file = join(srcDir, name);
    out.set(
      `${name.replace(TEMPLATE, '')}.html`,
      name.endsWith('.mjml') ? await compileMjmlFile(file) : await compileHtmlFile(file),
    );
  }
  return out;
}

/** Compiles every top-level template; returns the written paths. */
export async function buildTemplates(srcDir = TEMPLATES_DIR, outDir = COMPILED_DIR): Promise<string[]> {
  const compiled = await compileTemplates(srcDir);
  await mkdir(outDir, { recursive: true });
  const written: string[] = [];
  for (const [name, html] of compiled) {
    const out = join(outDir, name);
    // Write then rename, so a test reading the file concurrently never sees half of it.
    const tmp = `${out}.${process.pid}.tmp`;
    await writeFile(tmp, html);
    await rename(tmp, out);
    written.push(out);
  }
  // A template renamed or deleted takes its compiled HTML with it.
  for (const name of await readdir(outDir))
    if (name.endsWith('.html') && !compiled.has(name)) await unlink(join(outDir, name));
  return written;
}

/**
 * What `outDir` gets wrong against the sources: a compiled file missing or different, or an .html there that no
 * source makes (a template renamed or deleted). Empty when the committed HTML is what the sources compile to.
 */
export async function staleTemplates(srcDir = TEMPLATES_DIR, outDir = COMPILED_DIR): Promise<string[]> {
  const compiled = await compileTemplates(srcDir);
  const present = (await readdir(outDir).catch(() => [] as string[])).filter((f) => f.endsWith('.html'));
  const problems: string[] = [];
  for (const [name, html] of compiled) {
    const current = await readFile(join(outDir, name), 'utf8').catch(() => undefined);
    if (current === undefined) problems.push(`${name} is missing`);
    else if (current !== html) problems.push(`${name} differs from what its source compiles to`);
  }
  for (const name of present) if (!compiled.has(name)) problems.push(`${name} has no source template`);
  return problems;
}

if (import.meta.main) {
  try {
    if (process.argv.includes('--check')) {
      const problems = await staleTemplates();
      for (const p of problems) process.stderr.write(`templates/compiled/${p}\n`);
      if (problems.length > 0) {
        process.stderr.write('run `npm run build:templates` and commit templates/compiled/\n');
        process.exitCode = 1;
      }
    } else for (const file of await buildTemplates()) process.stdout.write(`wrote ${file}\n`);
  } catch (error) {
    process.stderr.write(`build:templates failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
