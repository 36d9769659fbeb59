/**
 * The writer of `pulse digest --preview`: the .eml exactly as a transport would send it (EmlFileWriter), and beside
 * it the .html a person opens in a browser, whose `cid:` images (which mean nothing to a browser) are data: URIs of
 * the attached bytes, so its charts show offline and wherever the file is moved. Pure Node: a preview also runs
 * against the real service in a production install, where mailparser (the SMTP sink's way) is not installed.
 */
import { randomBytes } from 'node:crypto';
import { rename, writeFile } from 'node:fs/promises';
import type { MailMessage } from '../../ports/mailer.ts';
import { EmlFileWriter } from '../mail/eml-file-writer.ts';

/** `cid:<id>` in the HTML: up to the closing quote, whitespace or `)` (as in a CSS url()). */
const CID_REF = /\bcid:([^"'\s)>]+)/g;

/** The message's HTML with every `cid:` reference to an attached image replaced by its data: URI. */
export function htmlForBrowser(message: Pick<MailMessage, 'html' | 'attachments'>): string {
  const images = new Map<string, string>();
  for (const a of message.attachments ?? []) {
    // A streamed attachment (a large CSV) is never an inline image, and could be read only once.
    if (a.cid === undefined || !(a.content instanceof Uint8Array)) continue;
    images.set(a.cid, `data:${a.contentType};base64,${Buffer.from(a.content).toString('base64')}`);
  }
  return message.html.replace(CID_REF, (ref, cid: string) => images.get(cid) ?? ref);
}

export class PreviewWriter extends EmlFileWriter {
  override async send(message: MailMessage): Promise<{ messageId: string }> {
    const before = this.written.length;
    const sent = await super.send(message);
    for (const path of this.written.slice(before).filter((p) => p.endsWith('.html'))) {
      const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
      await writeFile(tmp, htmlForBrowser(message));
      await rename(tmp, path);
    }
    return sent;
  }
}
