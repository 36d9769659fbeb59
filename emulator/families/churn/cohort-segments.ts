/**
 * Segments of the `churnAndEngagement` cohort: one `"all"` segment without `segmentBy`, one per install month with
 * `"installationMonth"`, or a property's segmentation (docs/interface.md "Segments and levels"). All three answer the
 * one Segmentation interface, so the report's pass over the clients does not care which it got.
 */
import { type Day, formatDay, monthStart, periodsOf } from '../../data/dates.ts';
import type { ProductData } from '../../data/model.ts';
import { fail, type Json, optString } from '../../http/validate.ts';
import { assertSegmentableProperty, parseSegmentation, type Segmentation } from '../../query/segments.ts';

export const INSTALLATION_MONTH = 'installationMonth';
const FIRST: readonly number[] = Object.freeze([0]);

/** Segments of the cohort installed in [startDay, lastInstallDay]; `of(i)` is only asked for those clients. */
export function parseCohortSegments(pd: ProductData, body: Json, startDay: Day, lastInstallDay: Day): Segmentation {
  const segmentBy = optString(body, 'segmentBy');
  const hasSegments = body.segments !== undefined && body.segments !== null;
  if (segmentBy === undefined) {
    if (hasSegments) fail('segments', 'requires segmentBy');
    return { labels: ['all'], of: () => FIRST, order: () => [0] };
  }
  if (segmentBy === INSTALLATION_MONTH) {
    if (hasSegments) fail('segments', `not allowed with segmentBy ${INSTALLATION_MONTH}`);
    return installMonths(pd, startDay, lastInstallDay);
  }
  // Checked here first so that property errors name `segmentBy` rather than `segments`.
  assertSegmentableProperty(pd, segmentBy, 'segmentBy');
  return parseSegmentation(pd, segmentBy, body.segments, 'segments');
}

/** Every month from startDay's to lastInstallDay's, labelled by its first day, in calendar order. */
function installMonths(pd: ProductData, startDay: Day, lastInstallDay: Day): Segmentation {
  const starts = lastInstallDay < startDay ? [] : periodsOf(startDay, lastInstallDay, 'month').map((p) => p.start);
  const labels = starts.map(formatDay);
  // Month id per install day, filled on first sight so the client loop does no date arithmetic.
  const monthOfDay = new Int32Array(Math.max(0, lastInstallDay - startDay + 1)).fill(-1);
  const buf = [0];
  return {
    labels,
    of(i) {
      const k = pd.installDay[i]! - startDay;
      let id = monthOfDay[k]!;
      if (id < 0) {
        id = starts.indexOf(monthStart(startDay + k));
        monthOfDay[k] = id;
      }
      buf[0] = id;
      return buf;
    },
    order: () => labels.map((_, id) => id),
  };
}
