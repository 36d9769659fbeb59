/**
 * Keeps every sent license registry report traceable, like a sent digest (archive-digest.ts): under
 * `<prefix>/license-reports/<iso-week>/` the email as a browser page (`index.html`, the "view in browser" link),
 * `figures.json` (each product's stored figures: snapshot key, SHA-256, key count, and the previous snapshot they
 * were compared with; the registry responses themselves are the snapshots) and `email.txt`. Write-once: a later run
 * of the same week keeps the first record.
 */
import { checkedKey, folderUnder } from '../../core/archive-key.ts';
import { putOnce } from '../../core/put-once.ts';
import type { ArchiveStore } from '../../ports/archive-store.ts';
import type { StoredFigures } from './registry-snapshot.ts';

export const reportArchivePrefix = (prefix: string, isoWeek: string) => folderUnder(prefix, 'license-reports', isoWeek);

/** The browser copy's key, known before rendering so the email can link to it. */
export const reportBrowserCopyKey = (base: string) => checkedKey(`${base}index.html`);

export async function archiveLicenseReport(
  store: ArchiveStore,
  base: string,
  report: { html: string; text: string; products: StoredFigures[] },
): Promise<string[]> {
  const keys = await Promise.all([
    putOnce(store, checkedKey(`${base}figures.json`), JSON.stringify(report.products, null, 2), 'application/json'),
    putOnce(store, checkedKey(`${base}email.txt`), report.text, 'text/plain; charset=utf-8'),
  ]);
  // The page last: its presence means the whole record is there.
  keys.push(await putOnce(store, reportBrowserCopyKey(base), report.html, 'text/html; charset=utf-8'));
  return keys;
}
