/**
 * Keeps every sent digest traceable: under `digests/<id>/<iso-week>/` the full report (`index.html`, the "view in
 * browser" page, self-contained), the email as sent (`email.html` with its images as sibling objects, `email.txt`),
 * every chart, the raw API responses of the run and the computed figures. Write-once: a later run for the same week
 * (another recipient's send time) finds the objects there and keeps the first record.
 */
import { checkedKey } from '../core/archive-key.ts';
import { browserCopyKey } from '../core/digest-report.ts';
import { putOnce } from '../core/put-once.ts';
import type { ArchiveStore } from '../ports/archive-store.ts';
import type { PreparedDigest } from './prepare.ts';

/** A chart's key (its cid is its name), so a channel message can link to it. */
export const chartKey = (base: string, cid: string) => keyIn(base, cid);

/** A key in the digest's folder (`base` from src/core/digest-report.ts `digestArchivePrefix`), checked like every archive key. */
const keyIn = (base: string, name: string) => checkedKey(`${base}${name}`);

export async function archiveDigest(store: ArchiveStore, base: string, p: PreparedDigest): Promise<string[]> {
  // In a browser `cid:` means nothing: the email's images are stored beside it and referenced relatively.
  let email = p.html;
  for (const img of p.images) if (img.cid) email = email.replaceAll(`cid:${img.cid}`, img.cid);
  // Settled, not Promise.all: a failed put must not leave the others in flight while the run shuts its peers down
  // (a local S3 then keeps half-written entries); the first failure is thrown once every put has ended.
  const settled = await Promise.allSettled([
    ...[...p.charts].map(([cid, png]) => putOnce(store, chartKey(base, cid), png, 'image/png')),
    putOnce(store, keyIn(base, 'email.html'), email, 'text/html; charset=utf-8'),
    putOnce(store, keyIn(base, 'raw-responses.json'), JSON.stringify(p.data.calls, null, 2), 'application/json'),
    putOnce(store, keyIn(base, 'figures.json'), JSON.stringify(p.figures, null, 2), 'application/json'),
    putOnce(store, keyIn(base, 'email.txt'), p.text, 'text/plain; charset=utf-8'),
  ]);
  const failed = settled.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  const keys = settled.map((r) => (r as PromiseFulfilledResult<string>).value);
  // The page last: its presence means the whole record is there.
  keys.push(await putOnce(store, browserCopyKey(base), p.report, 'text/html; charset=utf-8'));
  return keys;
}
