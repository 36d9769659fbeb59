/**
 * The README stays a newcomer's page: at most 200 lines, its config block loads as shown, and its picture of the
 * digest email is a real PNG of reasonable size. Every page of the docs opens with a paragraph saying who it is for.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { ROOT } from './markdown-links.ts';

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** The topic pages a newcomer reaches from the README's map of the docs. */
const PAGES = [
  'docs/digest.md',
  'docs/archive.md',
  'docs/licenses.md',
  'docs/configuration.md',
  'docs/operations.md',
  'docs/alarms.md',
  'docs/iam.md',
  'docs/aws.md',
  'docs/development.md',
  'emulator/README.md',
  'src/client/README.md',
];

describe('README.md', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pulse-readme-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const readme = read('README.md');

  it('has at most 200 lines', () => {
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(200);
  });

  it('shows a config that loads as it is', () => {
    const section = readme.slice(readme.indexOf('## Configuration: `pulse.config.json`'));
    const block = /^```(\w*)\n([\s\S]*?)^```$/m.exec(section);
    expect(block?.[1]).toBe('json');
    const file = join(dir, 'readme.json');
    writeFileSync(file, block![2]!);
    const config = loadConfig(file);
    expect(config.digests[0]!.id).toBe('exec-weekly');
    expect(config.archive?.publicBaseUrl).toBe('https://archive.example.com');
  });

  it('shows the digest email as a PNG 800 px wide, under 150 KB, and says how to remake it', () => {
    const image = /!\[[^\]]+\]\((docs\/images\/[^)]+\.png)\)/.exec(readme)?.[1];
    expect(image).toBe('docs/images/digest-email.png');
    const png = readFileSync(join(ROOT, image!));
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(png.readUInt32BE(16)).toBe(800);
    expect(statSync(join(ROOT, image!)).size).toBeLessThan(150 * 1024);
    expect(readme).toContain('node scripts/docs-screenshot.ts');
  });

  it('links every topic page from its map of the docs', () => {
    const map = readme.slice(readme.indexOf('## The docs'));
    for (const page of PAGES) expect(map).toContain(`](${page})`);
  });
});

describe('the topic pages', () => {
  it.each(PAGES)('%s opens with its title and a paragraph saying who it is for', (page) => {
    const [title, blank, first] = read(page).split('\n');
    expect(title).toMatch(/^# \S/);
    expect(blank).toBe('');
    expect(first).toMatch(/^For /);
  });
});
