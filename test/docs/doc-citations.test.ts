/**
 * Code and docs name docs by path (`docs/operations.md`) and cite their sections by heading (`docs/aws.md "Config
 * delivery"`), in comments, in prose and in messages people read (a `pulse doctor` hint, an error). Each named file must exist
 * and each cited heading must start a heading of that file, so a page renamed or a section moved fails here, naming
 * the file and line that still point at the old place.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { markdownFiles, ROOT } from './markdown-links.ts';

/** Where code lives; test/docs itself is left out (its fixtures name pages that do not exist on purpose). */
const FOLDERS = ['bin', 'bench', 'emulator', 'functions', 'lib', 'scripts', 'src', 'templates', 'test'];
const SKIPPED = new Set(['node_modules', 'fixtures', 'compiled', 'cdk.out']);
const CODE = /\.(?:ts|mts|cts|js|mjs|cjs|mjml|html)$/;

function codeFiles(): string[] {
  const found: string[] = [];
  const visit = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED.has(entry.name) && relative(ROOT, path) !== join('test', 'docs')) visit(path);
      } else if (CODE.test(entry.name)) found.push(relative(ROOT, path).split('\\').join('/'));
    }
  };
  for (const folder of FOLDERS) visit(join(ROOT, folder));
  // The docs' own prose too (their links are test/docs/links.test.ts's).
  return [...found.sort(), ...markdownFiles().filter((f) => !f.startsWith('test/docs/'))];
}

/** A doc named in code: `docs/x.md`, `ARCHITECTURE.md`, `README.md`, `emulator/README.md`, `bench/RESULTS.md`. */
const DOC = String.raw`(?:docs/[\w-]+\.md|[\w-]+(?:/[\w-]+)*/README\.md|bench/[A-Z]+\.md|ARCHITECTURE(?:\.md)?|README(?:\.md)?)`;
const NAMED = new RegExp(String.raw`(?<![\w./-])(${DOC})(?:,? "([^"\n]+)")?`, 'g');

const words = (heading: string) => heading.replace(/`/g, '').trim().toLowerCase();

function headings(file: string): string[] {
  return readFileSync(join(ROOT, file), 'utf8')
    .split('\n')
    .filter((line) => /^#{1,6}\s/.test(line))
    .map((line) => words(line.replace(/^#+\s+/, '')));
}

/** Every doc path that does not exist and every cited heading its doc does not have, as `file:line: problem`. */
function staleCitations(): string[] {
  const problems: string[] = [];
  for (const file of codeFiles()) {
    readFileSync(join(ROOT, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        for (const m of line.matchAll(NAMED)) {
          const doc = m[1]!.endsWith('.md') ? m[1]! : `${m[1]}.md`;
          const at = `${file}:${i + 1}`;
          if (!existsSync(join(ROOT, doc))) problems.push(`${at}: ${doc} does not exist`);
          else if (m[2] && !headings(doc).some((h) => h.startsWith(words(m[2]!))))
            problems.push(`${at}: ${doc} has no heading "${m[2]}"`);
        }
      });
  }
  return problems;
}

describe('docs named in code', () => {
  it('exist, and every section cited by its heading is still there', () => {
    expect(staleCitations()).toEqual([]);
  });
});
