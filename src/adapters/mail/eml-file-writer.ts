/**
 * A Mailer that writes instead of sending: `<name>.eml` (the exact MIME a transport would send) and `<name>.html`
 * (the HTML body) into a folder. `pulse digest --preview` renders through it, so a preview is the real message.
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type { Mailer, MailMessage } from '../../ports/mailer.ts';
import { safeFileFragment } from '../local/file-names.ts';
import { toNodemailerMail } from './nodemailer-mailer.ts';

export class EmlFileWriter implements Mailer {
  readonly written: string[] = [];
  private readonly transport = nodemailer.createTransport({ streamTransport: true, buffer: true });
  private readonly dir: string;
  private readonly baseName: (message: MailMessage) => string;

  constructor(dir: string, baseName: (message: MailMessage) => string) {
    this.dir = dir;
    this.baseName = baseName;
  }

  async send(message: MailMessage): Promise<{ messageId: string }> {
    const info = await this.transport.sendMail(toNodemailerMail(message));
    await mkdir(this.dir, { recursive: true });
    const base = join(this.dir, safeFileFragment(this.baseName(message)));
    for (const [ext, body] of [
      ['.html', message.html],
      ['.eml', info.message as Buffer],
    ] as const) {
      await writeFile(`${base}${ext}.tmp`, body);
      await rename(`${base}${ext}.tmp`, `${base}${ext}`);
      this.written.push(`${base}${ext}`);
    }
    return { messageId: String(info.messageId) };
  }
}
