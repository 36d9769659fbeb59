/** ReportPages over a local folder: `<dir>/<name>.html`, written atomically, linked as a `file:` URL. */
import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ReportPages } from '../../ports/report-pages.ts';
import { safeFileFragment } from './file-names.ts';

export class ReportFolder implements ReportPages {
  private readonly dir: string;

  constructor(dir: string) {
    this.dir = resolve(dir);
  }

  /** The page's path: the name reduced to a safe file-name fragment, never a path of its own. */
  pathOf(name: string): string {
    return join(this.dir, `${safeFileFragment(name)}.html`);
  }

  linkTo(name: string): string {
    return pathToFileURL(this.pathOf(name)).href;
  }

  async write(name: string, html: string): Promise<string> {
    const path = this.pathOf(name);
    await mkdir(this.dir, { recursive: true });
    const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(tmp, html);
    await rename(tmp, path);
    return path;
  }
}
