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

  it('fails when there is nothing to build', async () => {
    await expect(buildTemplates(src, out)).rejects.toThrow(/no \.mjml templates/);
  });
});
