import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTemplates } from '../../scripts/build-templates.ts';

let src: string;
let out: string;
beforeEach(async () => {
  src = await mkdtemp(join(tmpdir(), 'pulse-mjml-'));
  out = join(src, 'out');
});
afterEach(() => rm(src, { recursive: true, force: true }));

const mjml = (body: string) =>
  `<mjml><mj-body><!-- a source comment --><mj-section><mj-column>${body}</mj-column></mj-section></mj-body></mjml>`;

describe('build:templates', () => {
  it('compiles valid MJML, keeps the markers and drops source comments', async () => {
    await writeFile(
      join(src, 'ok.mjml'),
      mjml('<mj-raw><!--[[#if x]]--></mj-raw><mj-text>[[x]]</mj-text><mj-raw><!--[[/if]]--></mj-raw>'),
    );
    const [file] = await buildTemplates(src, out);
    expect(await readdir(out)).toEqual(['ok.html']);
    const html = await readFile(file!, 'utf8');
    expect(html).toContain('<!--[[#if x]]-->');
    expect(html).toContain('>[[x]]</div>');
    expect(html).not.toContain('a source comment');
  });

  it('fails on invalid MJML (strict validation)', async () => {
    await writeFile(join(src, 'bad.mjml'), mjml('<mj-text padding="lots">x</mj-text>'));
    await expect(buildTemplates(src, out)).rejects.toThrow(/padding/);
  });

  it('fails when the compiled HTML breaks a templater rule', async () => {
    await writeFile(join(src, 'unclosed.mjml'), mjml('<mj-raw><!--[[#each xs]]--></mj-raw><mj-text>x</mj-text>'));
    await expect(buildTemplates(src, out)).rejects.toThrow(/\[\[#each xs\]\] is never closed/);
    await writeFile(join(src, 'unclosed.mjml'), mjml('<mj-text><a href="[[link]]">x</a></mj-text>'));
    await expect(buildTemplates(src, out)).rejects.toThrow(/does not fit a href attribute/);
  });

  it('copies a plain HTML template without source comments and indentation, keeping the markers', async () => {
    await writeFile(
      join(src, 'page.html'),
      '<!doctype html>\n<!-- a source comment -->\n<ul>\n  <!--[[#each xs]]-->\n  <li><a href="#[[id]]">[[.]]</a></li>\n\n  <!--[[/each]]-->\n</ul>\n',
    );
    await writeFile(join(src, 'mail.mjml'), mjml('<mj-text>[[x]]</mj-text>'));
    const written = await buildTemplates(src, out);
    expect(written.map((f) => f.slice(out.length + 1))).toEqual(['mail.html', 'page.html']);
    expect(await readFile(join(out, 'page.html'), 'utf8')).toBe(
      '<!doctype html>\n<ul>\n<!--[[#each xs]]--><li><a href="#[[id]]">[[.]]</a></li>\n<!--[[/each]]--></ul>\n',
    );
  });

  it('fails when a plain HTML template breaks a templater rule, or two templates share a name', async () => {
    await writeFile(join(src, 'page.html'), '<img src="[[src]]">');
    await expect(buildTemplates(src, out)).rejects.toThrow(/page:1: .*does not fit a src attribute/);
    await writeFile(join(src, 'page.html'), '<p>[[x]]</p>');
    await writeFile(join(src, 'page.mjml'), mjml('<mj-text>[[x]]</mj-text>'));
    await expect(buildTemplates(src, out)).rejects.toThrow(/page\.mjml: another template .* has the same name/);
  });

  it('fails when there is nothing to build', async () => {
    await expect(buildTemplates(src, out)).rejects.toThrow(/no \.mjml or \.html templates/);
  });
});
