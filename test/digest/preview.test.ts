/**
 * previewDigest over the real local peers: the preview is the real message (written as .eml and .html), it never
 * touches the ledger or the archive, and `sendTo` sends exactly one copy to that address only.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ReportFolder } from '../../src/adapters/local/report-folder.ts';
import { EmlFileWriter } from '../../src/adapters/mail/eml-file-writer.ts';
import { digestLedgerKey } from '../../src/core/delivery/ledger-keys.ts';
import { previewDigest } from '../../src/digest/preview.ts';
import {
  CURRENT_WEEK,
  DIGEST_TODAY,
  expectWellFormedDigest,
  LAST_WEEK,
  type LocalDigest,
  startLocalDigest,
} from '../helpers/local-digest.ts';

const RECIPIENTS = ['ann@example.com', 'bob@example.com'];
let env: LocalDigest;
let outDir: string;

beforeAll(async () => {
  env = await startLocalDigest({
    digests: [
      {
        id: 'weekly',
        title: 'Preview digest',
        productIds: ['12345678901'],
        recipients: RECIPIENTS.map((address) => ({ address })),
        owner: 'owner@example.com',
      },
    ],
  });
  outDir = await mkdtemp(join(tmpdir(), 'pulse-preview-'));
}, 30_000);
afterAll(async () => {
  await env.close();
  await rm(outDir, { recursive: true, force: true });
});

const writerIn = (dir: string) => ({
  writer: new EmlFileWriter(dir, (m) => `${m.headers?.['X-Pulse-Digest']}-${m.headers?.['X-Pulse-Week']}`),
  pages: new ReportFolder(dir),
});

async function expectNoState(): Promise<void> {
  for (const week of [LAST_WEEK, CURRENT_WEEK])
    for (const address of RECIPIENTS)
      expect(await env.peers.ledger.get(digestLedgerKey('weekly', week, address))).toBeUndefined();
  expect(await env.peers.ledger.get(`digest-held#weekly#${DIGEST_TODAY}`)).toBeUndefined();
  const archived: string[] = [];
  for await (const o of env.peers.archive.list('pulse/')) archived.push(o.key);
  expect(archived).toEqual([]);
}

it('writes the message as .eml, its HTML as .html and the full report beside them, touching neither ledger nor archive nor mailbox', async () => {
  const dir = join(outDir, 'plain');
  const result = await previewDigest(env.config, env.ports(), writerIn(dir));
  expect(result).toMatchObject({ job: 'digest', ok: true, counts: { previewed: 1, sent: 0 }, errors: [] });
  // File names are made safe (lower case, no separators) by the writer.
  const base = join(dir, `weekly-${LAST_WEEK.toLowerCase()}`);
  const report = join(dir, `digest-weekly-${LAST_WEEK.toLowerCase()}.html`);
  expect(result.outputs.sort()).toEqual([report, `${base}.eml`, `${base}.html`].sort());

  const raw = await readFile(`${base}.eml`, 'utf8');
  const parsed = await simpleParser(raw, { keepCidLinks: true });
  expectWellFormedDigest({ raw, parsed, to: RECIPIENTS[0]! });
  expect(parsed.subject).toContain('Preview digest · Week 47');
  expect(parsed.to).toMatchObject({ text: RECIPIENTS[0] });
  expect(await readFile(`${base}.html`, 'utf8')).toBe(parsed.html);
  // The email links the report on disk: nothing is archived in a preview.
  expect(parsed.text).toContain(`Full report in your browser: ${pathToFileURL(report).href}`);
  expect(parsed.html).toContain(`href="${pathToFileURL(report).href}#product-`);
  expect(await readFile(report, 'utf8')).toContain('data:image/png;base64,');

  await expectNoState();
  expect(env.peers.sink.messages()).toEqual([]);
});

it('shows what the guard would hold as the "data incomplete" banner and reports it', async () => {
  const result = await previewDigest(env.config, env.ports(), {
    ...writerIn(join(outDir, 'incomplete')),
    week: CURRENT_WEEK,
  });
  expect(result).toMatchObject({ ok: false, counts: { previewed: 1, sent: 0 } });
  expect(result.errors.join('\n')).toContain(
    `weekly ${CURRENT_WEEK} would be held: week ${CURRENT_WEEK} is not complete`,
  );
  const html = await readFile(result.outputs.find((p) => p.endsWith('.html') && !p.includes('/digest-'))!, 'utf8');
  expect(html).toContain(`Data incomplete: week ${CURRENT_WEEK} is not complete`);
  await expectNoState();
  expect(env.peers.sink.messages()).toEqual([]);
});

it('with sendTo, sends exactly one copy, to that address only', async () => {
  const result = await previewDigest(env.config, env.ports(), {
    ...writerIn(join(outDir, 'send-to')),
    sendTo: 'reviewer@example.com',
  });
  expect(result).toMatchObject({ ok: true, counts: { previewed: 1, sent: 1 } });
  const mails = await env.mails();
  expect(mails.map((m) => m.to)).toEqual(['reviewer@example.com']);
  expect(mails[0]!.parsed.headers.get('x-pulse-week')).toBe(LAST_WEEK);
  expectWellFormedDigest(mails[0]!);
  await expectNoState();
});
