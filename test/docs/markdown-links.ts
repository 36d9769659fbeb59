/**
 * The repository's Markdown files and their relative links, for the docs tests: each link's file must exist, and a
 * `#anchor` must name a heading of its target (GitHub's slugs). External links (any URL scheme) are not fetched.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Folders never searched for Markdown: dependencies, build output, local state, and test fixtures. */
const SKIPPED = new Set(['node_modules', '.git', 'cdk.out', 'coverage', '.pulse', 'test-artifacts', 'fixtures']);

/** Every *.md file under `root` (paths relative to it, `/`-separated, sorted). */
export function markdownFiles(root = ROOT): string[] {
  const found: string[] = [];
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) {
        if (!SKIPPED.has(entry.name)) visit(join(dir, entry.name));
      } else if (entry.isFile() && entry.name.endsWith('.md')) {
        found.push(relative(root, join(dir, entry.name)).split('\\').join('/'));
      }
    }
  };
  visit(root);
  return found.sort();
}

/** The lines of a Markdown text outside fenced code blocks, with their 1-based numbers and inline code removed. */
function proseLines(text: string): { line: number; text: string }[] {
  const lines: { line: number; text: string }[] = [];
  let fence: string | undefined;
  text.split('\n').forEach((raw, i) => {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(raw)?.[1];
    if (marker) {
      if (fence === undefined) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      return;
    }
    if (fence === undefined) lines.push({ line: i + 1, text: raw.replace(/(`+)[\s\S]*?\1/g, '') });
  });
  return lines;
}

/**
 * GitHub's anchor for a heading: its text without Markdown (links keep their text, backticks and emphasis marks
 * go), lower case, every character that is not a letter, digit, space, `-` or `_` dropped, each space a `-`.
 */
export function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors a Markdown text offers: one per heading (repeats get `-1`, `-2`, … as on GitHub), and HTML ids. */
export function anchors(text: string): Set<string> {
  const found = new Set<string>();
  const counts = new Map<string, number>();
  let fence: string | undefined;
  for (const raw of text.split('\n')) {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(raw)?.[1];
    if (marker) {
      if (fence === undefined) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+\s*)?$/.exec(raw)?.[1];
    if (heading !== undefined) {
      const base = slug(heading.trim());
      const seen = counts.get(base) ?? 0;
      counts.set(base, seen + 1);
      found.add(seen === 0 ? base : `${base}-${seen}`);
    }
    for (const m of raw.matchAll(/<a\s[^>]*(?:id|name)="([^"]+)"/g)) found.add(m[1]!);
  }
  return found;
}

export interface Link {
  file: string;
  line: number;
  target: string;
}

/** Every link of a Markdown file: inline links and images, reference definitions, and HTML href/src attributes. */
export function linksOf(file: string, text: string): Link[] {
  const links: Link[] = [];
  for (const { line, text: prose } of proseLines(text)) {
    const add = (target: string) => links.push({ file, line, target: target.trim() });
    for (const m of prose.matchAll(/\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+"[^"]*")?\s*\)/g)) add(m[1]!.replace(/^<|>$/g, ''));
    const definition = /^ {0,3}\[[^\]]+\]:\s*(\S+)/.exec(prose);
    if (definition) add(definition[1]!);
    for (const m of prose.matchAll(/<(?:a|img)\s[^>]*(?:href|src)="([^"]+)"/g)) add(m[1]!);
  }
  return links;
}

/** What is wrong with one link ('' when it resolves): its file must exist, its anchor name a heading there. */
export function problemOf(link: Link, root = ROOT): string {
  const { target } = link;
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return ''; // http:, https:, mailto:: not fetched
  const [pathPart = '', anchor] = target.split('#', 2) as [string, string | undefined];
  const path = decodeURIComponent(pathPart.split('?')[0]!);
  const from = resolve(root, link.file);
  const to = path === '' ? from : path.startsWith('/') ? join(root, path) : resolve(dirname(from), path);
  if (!existsSync(to)) return `${relative(root, to) || path} does not exist`;
  if (anchor === undefined || anchor === '') return '';
  if (statSync(to).isDirectory() || !to.endsWith('.md')) return '';
  const offered = anchors(readFileSync(to, 'utf8'));
  return offered.has(decodeURIComponent(anchor).toLowerCase())
    ? ''
    : `#${anchor} is not a heading of ${relative(root, to).split('\\').join('/')}`;
}

/** Every broken relative link under `root`, as `file:line: target: problem`. */
export function brokenLinks(root = ROOT): string[] {
  const broken: string[] = [];
  for (const file of markdownFiles(root)) {
    for (const link of linksOf(file, readFileSync(join(root, file), 'utf8'))) {
      const problem = problemOf(link, root);
      if (problem) broken.push(`${link.file}:${link.line}: ${link.target}: ${problem}`);
    }
  }
  return broken;
}
