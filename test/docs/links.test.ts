/**
 * Every relative link in the repository's Markdown resolves: the file exists and a `#anchor` names a heading of the
 * target (GitHub's slugs). A link broken by a moved file fails here, naming the file, line and target.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { anchors, brokenLinks, linksOf, markdownFiles, slug } from './markdown-links.ts';

describe('the docs links', () => {
  it('every relative link of every Markdown file resolves, anchors included', () => {
    expect(markdownFiles()).toContain('README.md');
    expect(brokenLinks()).toEqual([]);
  });
});

describe('the link check itself', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pulse-links-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("makes GitHub's anchors: lower case, spaces to -, punctuation and backticks dropped, repeats numbered", () => {
    expect(slug('Configuration: `pulse.config.json`')).toBe('configuration-pulseconfigjson');
    expect(slug('In AWS: `cdk synth` / `deploy`')).toBe('in-aws-cdk-synth--deploy');
    expect(slug('8. Check the deployment: `pulse doctor`')).toBe('8-check-the-deployment-pulse-doctor');
    expect(slug('Weekly digest: [`pulse digest`](x.md)')).toBe('weekly-digest-pulse-digest');
    expect(slug('Ünïcødé keys_and-dashes')).toBe('ünïcødé-keys_and-dashes');
    expect([...anchors('# A\n## A\n```\n# not a heading\n```\n### A ###\n<a id="here"></a>')]).toEqual([
      'a',
      'a-1',
      'a-2',
      'here',
    ]);
  });

  it('finds inline links, images, reference definitions and HTML links, not those in code', () => {
    const text = [
      'See [the guide](docs/a.md#intro) and ![a picture](img/p.png "title").',
      '`[not](a-link.md)` and',
      '```md',
      '[not](either.md)',
      '```',
      '[ref]: ../b.md',
      '<a href="c.md#x">c</a> <img src="d.png">',
    ].join('\n');
    expect(linksOf('x.md', text).map((l) => `${l.line} ${l.target}`)).toEqual([
      '1 docs/a.md#intro',
      '1 img/p.png',
      '6 ../b.md',
      '7 c.md#x',
      '7 d.png',
    ]);
  });

  it('names a missing file, a missing anchor, and leaves external links alone', () => {
    mkdirSync(join(dir, 'docs'), { recursive: true });
    writeFileSync(join(dir, 'docs', 'a.md'), '# A page\n\n## Its `section`\n\n[up](../README.md#top)\n');
    writeFileSync(
      join(dir, 'README.md'),
      [
        '# Top',
        '[ok](docs/a.md#its-section) [own](#top) [folder](docs/) [web](https://example.com/x.md#nope)',
        '[gone](docs/b.md) [bad anchor](docs/a.md#its-sections) [own bad](#bottom)',
      ].join('\n'),
    );
    expect(brokenLinks(dir)).toEqual([
      'README.md:3: docs/b.md: docs/b.md does not exist',
      'README.md:3: docs/a.md#its-sections: #its-sections is not a heading of docs/a.md',
      'README.md:3: #bottom: #bottom is not a heading of README.md',
    ]);
  });
});
