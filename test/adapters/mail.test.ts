/**
 * Mail: smtpMailer → the local SMTP sink over a real socket, the written .eml parsed back with mailparser; the SES
 * mailer with a mocked SESv2 client (no SES peer can run here), checking the raw MIME it would send.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import { mockClient } from 'aws-sdk-client-mock';
import { type ParsedMail, simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SmtpSink, safeFileFragment, startSmtpSink } from '../../src/adapters/local/smtp-sink.ts';
import { sesMailer, smtpMailer } from '../../src/adapters/mail/nodemailer-mailer.ts';
import type { MailMessage } from '../../src/ports/mailer.ts';
import { barChartPng } from '../helpers/test-png.ts';

/** A real PNG (a tiny bar chart), built byte by byte. */
const PNG = barChartPng(8, 4, 2);
const message = (to: string): MailMessage => ({
  from: 'pulse@example.com',
  to,
  subject: 'Weekly digest — 2026-W47',
  text: 'Active clients: 1,234 (+5 %)',
  html: '<h1>Weekly digest</h1><img src="cid:chart-active@pulse" alt="Active clients: 1,234">',
  attachments: [{ filename: 'active.png', content: PNG, contentType: 'image/png', cid: 'chart-active@pulse' }],
  headers: { 'X-Pulse-Digest': 'exec-weekly/2026-W47' },
});

/** Every content type in the MIME tree, depth first. */
function contentTypes(raw: string): string[] {
  return [...raw.matchAll(/^Content-Type:\s*([^;\r\n]+)/gim)].map((m) => m[1]!.toLowerCase());
}

function expectDigestShape(parsed: ParsedMail, raw: string): void {
  const types = contentTypes(raw);
  expect(types).toContain('multipart/alternative');
  expect(types).toContain('multipart/related');
  expect(types.indexOf('multipart/alternative')).toBeLessThan(types.indexOf('multipart/related'));
  expect(parsed.text?.trim()).toBe('Active clients: 1,234 (+5 %)');
  expect(parsed.html).toContain('src="cid:chart-active@pulse"');
  expect(parsed.attachments).toHaveLength(1);
  const [image] = parsed.attachments;
  expect(image).toMatchObject({ contentType: 'image/png', cid: 'chart-active@pulse', contentDisposition: 'inline' });
  expect(Buffer.compare(image!.content, Buffer.from(PNG))).toBe(0);
  expect(parsed.headers.get('x-pulse-digest')).toBe('exec-weekly/2026-W47');
}

describe('smtpMailer → local SMTP sink', () => {
  let outbox: string;
  let sink: SmtpSink;
  beforeAll(async () => {
    outbox = await mkdtemp(join(tmpdir(), 'pulse-outbox-'));
    sink = await startSmtpSink({ outboxDir: outbox });
  });
  afterAll(async () => {
    await sink.close();
    await rm(outbox, { recursive: true, force: true });
  });

  it('delivers text + html + an inline CID image, written as .eml and .html', async () => {
    const mailer = smtpMailer({ host: sink.host, port: sink.port, secure: false });
    const { messageId } = await mailer.send(message('ceo@example.com'));
    mailer.close();
    const [summary] = sink.messages();
    expect(summary).toMatchObject({ to: ['ceo@example.com'], from: 'pulse@example.com', messageId, attachments: 1 });
    expect(summary!.emlFile).toMatch(/^.*\/\d{8}T\d{9}Z-0001-ceo@example\.com\.eml$/);
    const raw = await readFile(summary!.emlFile, 'utf8');
    expectDigestShape(await simpleParser(raw, { skipImageLinks: true }), raw);
    // The .html is for a browser: its cid: image is inlined, so the chart shows when the file is opened.
    const html = await readFile(summary!.htmlFile!, 'utf8');
    expect(html).toContain('<h1>Weekly digest</h1>');
    expect(html).toContain(`src="data:image/png;base64,${Buffer.from(PNG).toString('base64')}"`);
    expect((await readdir(outbox)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('keeps hostile recipient addresses inside the outbox', async () => {
    const mailer = smtpMailer({ host: sink.host, port: sink.port, secure: false, pool: true });
    // smtp-server itself refuses `..` in addresses; these pass it, so the sink must neutralise them.
    const hostile = [
      '/etc/passwd@example.com',
      '~root/.ssh@example.com',
      'con|nul*?@example.com',
      '.hidden@example.com',
    ];
    for (const to of hostile) await mailer.send({ ...message(to), attachments: [] });
    mailer.close();
    const written = sink.messages().slice(-hostile.length);
    expect(written).toHaveLength(hostile.length);
    for (const m of written) {
      expect(join(m.emlFile, '..')).toBe(outbox);
      expect(m.emlFile.slice(outbox.length + 1)).toMatch(/^[\w@.+-]+\.eml$/);
    }
    expect(await readdir(outbox)).toHaveLength(2 * (written.length + 1)); // .eml + .html each, nothing elsewhere
  });

  it('asks a credentials provider again for every message (rotation), never keeping a stale transport', async () => {
    let asked = 0;
    const auth = async () => ({ user: 'pulse', pass: `rotated-${++asked}` });
    const mailer = smtpMailer({ host: sink.host, port: sink.port, secure: false, auth });
    const before = sink.messages().length;
    await mailer.send(message('a@example.com'));
    await mailer.send(message('b@example.com'));
    expect(asked).toBe(2);
    expect(
      sink
        .messages()
        .slice(before)
        .map((m) => m.to),
    ).toEqual([['a@example.com'], ['b@example.com']]);
  });

  it('reduces addresses to safe file-name fragments', () => {
    expect(safeFileFragment('../../etc/passwd')).toBe('etc_passwd');
    expect(safeFileFragment('A.B+tag@Example.com')).toBe('a.b+tag@example.com');
    expect(safeFileFragment('...')).toBe('unknown');
    expect(safeFileFragment(`${'x'.repeat(100)}@example.com`)).toHaveLength(64);
  });
});

describe('sesMailer', () => {
  it('hands SES v2 the raw MIME message with the alternative/related tree and the inline image', async () => {
    const ses = mockClient(SESv2Client);
    ses.on(SendEmailCommand).resolves({ MessageId: '0100018c-test' });
    const mailer = sesMailer({ client: new SESv2Client({ region: 'eu-west-1' }) });
    const { messageId } = await mailer.send(message('cpo@example.com'));
    expect(messageId).toBe('<0100018c-test@eu-west-1.amazonses.com>');
    const [call] = ses.commandCalls(SendEmailCommand);
    const input = call!.args[0].input;
    expect(input.FromEmailAddress).toBe('pulse@example.com');
    expect(input.Destination?.ToAddresses).toEqual(['cpo@example.com']);
    const raw = Buffer.from(input.Content!.Raw!.Data!).toString('utf8');
    expectDigestShape(await simpleParser(raw, { skipImageLinks: true }), raw);
    ses.restore();
  });
});
