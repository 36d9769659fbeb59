/**
 * Where a digest's full report lives, for every job that points at it: the digest writes its folder
 * (src/digest/archive-digest.ts) and links its email to the browser copy; the usage alerts link each alert to its
 * product's section in the report of the week.
 */
import { checkedKey, folderUnder } from './archive-key.ts';

/** The digest's folder for one ISO week: `<prefix>/digests/<digest id>/<iso week>/`. */
export const digestArchivePrefix = (prefix: string, digestId: string, isoWeek: string) =>
  folderUnder(prefix, 'digests', digestId, isoWeek);

/** The browser copy's key (the full report, self-contained), known before rendering so the email can link to it. */
export const browserCopyKey = (base: string) => checkedKey(`${base}index.html`);

/** A product's section in the full report: product ids are digits, so the anchor is always a safe fragment. */
export const productAnchor = (productId: string): string => `product-${productId.replace(/[^A-Za-z0-9_-]/g, '_')}`;
