/**
 * The local outbox as the console shows it: every message the SMTP sink kept (`<stamp>-<seq>-<recipient>.eml`, and
 * beside it the `.html` its reader sees, images inlined: src/adapters/local/smtp-sink.ts) and the full-report pages
 * written beside them (src/adapters/local/report-folder.ts). Newest first. A message is parsed once per file
 * (mailparser), then kept by name, size and time: the sink renames finished files into place and never rewrites
 * them. Names come from the listing only, so a request can never name a path.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { simpleParser } from 'mailparser';

export interface OutboxMessage {
  /** The file name without `.eml`: the message's id in the console. */
  name: string;
  subject: string;
  from: string;
  to: string;
  /** When the sink received it (from the file name), ISO 8601. */
  receivedAt: string;
  /** Digest, license alerts, license report, a notice to an owner, or another message. */
  kind: string;
  /** Whether its `.html` (the reader's view) is there. */
  hasHtml: boolean;
  attachments: number;
}

export interface Outbox {
  messages: OutboxMessage[];
  /** Full-report pages (`.html` without an `.eml`), by file name without `.html`, newest first. */
  reports: { name: string; modifiedAt: string }[];
}

const cache = new Map<string, OutboxMessage>();

export async function readOutbox(dir: string): Promise<Outbox> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const emls = names.filter((n) => n.endsWith('.eml')).map((n) => n.slice(0, -4));
  const htmls = new Set(names.filter((n) => n.endsWith('.html')).map((n) => n.slice(0, -5)));
  const messages = (
    await Promise.all(emls.map((name) => messageOf(dir, name, htmls.has(name)).catch(() => undefined)))
  ).filter((m): m is OutboxMessage => m !== undefined);
  messages.sort((a, b) => (a.receivedAt === b.receivedAt ? cmp(b.name, a.name) : cmp(b.receivedAt, a.receivedAt)));
  const emlSet = new Set(emls);
  const reports = await Promise.all(
    [...htmls]
      .filter((n) => !emlSet.has(n))
      .map(async (name) => {
        const s = await stat(join(dir, `${name}.html`)).catch(() => undefined);
        return { name, modifiedAt: s ? s.mtime.toISOString() : '' };
      }),
  );
  reports.sort((a, b) => cmp(b.modifiedAt, a.modifiedAt));
  return { messages, reports };
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

async function messageOf(dir: string, name: string, hasHtml: boolean): Promise<OutboxMessage> {
  const path = join(dir, `${name}.eml`);
  const s = await stat(path);
  const cacheKey = `${path}:${s.size}:${s.mtimeMs}:${hasHtml}`;
  const cached = cache.get(cacheKey);
  if (cached) return cached;
  const parsed = await simpleParser(await readFile(path), { skipHtmlToText: true, skipTextToHtml: true });
  const header = (h: string): string | undefined => {
    const v = parsed.headers.get(h);
    return typeof v === 'string' ? v : undefined;
  };
  const message: OutboxMessage = {
    name,
    subject: parsed.subject ?? '(no subject)',
    from: parsed.from?.text ?? '',
    to: [parsed.to ?? []]
      .flat()
      .map((a) => a.text)
      .join(', '),
    receivedAt: receivedAtOf(name) ?? parsed.date?.toISOString() ?? s.mtime.toISOString(),
    kind: kindOf(header),
    hasHtml,
    attachments: parsed.attachments.length,
  };
  cache.set(cacheKey, message);
  return message;
}

/** `20261127T063621203Z-0001-…` → `2026-11-27T06:36:21.203Z` (smtp-sink.ts names files so). */
function receivedAtOf(name: string): string | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{3})Z-/.exec(name);
  return m ? `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}.${m[7]}Z` : undefined;
}

function kindOf(header: (h: string) => string | undefined): string {
  if (header('x-pulse-notice') !== undefined) return `notice to the owner (${header('x-pulse-notice')})`;
  const digest = header('x-pulse-digest');
  if (digest !== undefined) return `digest ${digest}${header('x-pulse-week') ? `, ${header('x-pulse-week')}` : ''}`;
  if (header('x-pulse-license-alerts') !== undefined) return 'license alerts';
  if (header('x-pulse-license-report') !== undefined) return 'license report';
  if (header('x-pulse-license-alerts-notice') !== undefined || header('x-pulse-license-report-notice') !== undefined)
    return 'notice to the license owner';
  return 'message';
}

/** A message's or report's file in the outbox, only if the listing has it under this exact name. */
export async function outboxFile(dir: string, name: string, ext: '.eml' | '.html'): Promise<string | undefined> {
  if (name !== basename(name) || name.startsWith('.')) return undefined;
  const names = await readdir(dir).catch(() => [] as string[]);
  return names.includes(`${name}${ext}`) ? join(dir, `${name}${ext}`) : undefined;
}

/** The full-report pages of this outbox that a message links to (`file:` links into the outbox: report-folder.ts). */
export function linkedReports(messageHtml: string, reports: readonly string[]): string[] {
  const linked = new Set<string>();
  for (const m of messageHtml.matchAll(/href="file:\/\/[^"#]*\/([^/"#]+)\.html(?:#[^"]*)?"/g)) {
    const name = decodeURIComponent(m[1]!);
    if (reports.includes(name)) linked.add(name);
  }
  return [...linked];
}
