/**
 * The link under each alert to the full digest report: the product's section in the report of the first digest that
 * covers the product, for the ISO week of the judged period or, when that week's report is not written yet (a digest
 * goes out after its week), the week before: the latest full picture of the product. Only where a reader can open
 * it: an https address (the archive behind a public base URL) of a report that exists; otherwise no link, and the
 * alert says nothing of one. A failed look is logged and costs the link only, never the alert.
 */
import { archivePrefixOf, type PulseConfig } from '../config/schema.ts';
import { isoWeekOf, shiftIsoWeek } from '../core/calendar.ts';
import { browserCopyKey, digestArchivePrefix, productAnchor } from '../core/digest-report.ts';
import type { ArchiveStore } from '../ports/archive-store.ts';
import type { Logger } from '../ports/logger.ts';

/** A digest as far as a link needs it: whose report covers which products. */
export interface ReportDigest {
  id: string;
  productIds: readonly string[];
}

/** What a link is looked up by: the product and the judged period's first day. */
export const reportLinkKey = (c: { productId: string; period: string }) => `${c.productId}|${c.period}`;

export async function reportLinks(
  config: PulseConfig,
  archive: ArchiveStore | undefined,
  changes: readonly { productId: string; period: string }[],
  logger: Pick<Logger, 'warn'>,
  /** The config's digests, or (in AWS, where the function's config carries no other job's section) their ids. */
  digests: readonly ReportDigest[] = config.digests,
): Promise<Map<string, string>> {
  const links = new Map<string, string>();
  if (!archive || !config.archive || changes.length === 0) return links;
  const found = new Map<string, Promise<string | undefined>>();
  /** The report's https link if it exists; each report looked at once a run. */
  const reportAt = (digestId: string, isoWeek: string) => {
    const key = browserCopyKey(digestArchivePrefix(archivePrefixOf(config), digestId, isoWeek));
    let link = found.get(key);
    if (!link) {
      link = (async () => {
        const url = await archive.linkTo(key);
        if (!/^https:\/\//.test(url)) return undefined;
        return (await archive.head(key)) ? url : undefined;
      })().catch((e: unknown) => {
        logger.warn('usage alerts: digest report not looked up', { key, error: (e as Error).name });
        return undefined;
      });
      found.set(key, link);
    }
    return link;
  };
  for (const change of changes) {
    const digest = digests.find((d) => d.productIds.includes(change.productId));
    if (!digest || links.has(reportLinkKey(change))) continue;
    const week = isoWeekOf(change.period);
    for (const candidate of [week, shiftIsoWeek(week, -1)]) {
      const url = await reportAt(digest.id, candidate.isoWeek);
      if (url) {
        links.set(reportLinkKey(change), `${url}#${productAnchor(change.productId)}`);
        break;
      }
    }
  }
  return links;
}
