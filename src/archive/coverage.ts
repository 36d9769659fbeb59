/**
 * The coverage report beside each manifest (`<prefix>/coverage/<run-id>.json`): per product and kind, which of the
 * files the service lists are in the archive after this run, which are missing and which failed. A daily file is
 * shown by its date, a monthly file by its range (`2026-10-01/2026-10-31`, ISO 8601 interval).
 */
import type { ArchiveKind } from '../config/schema.ts';
import { keyUnder } from '../core/archive-key.ts';
import type { ArchiveStore } from '../ports/archive-store.ts';
import type { CopyOutcome } from './copy/copy-file.ts';
import type { KindPlan, PlannedFile } from './plan.ts';

/** Format 2 added `complete`, `problems` and `repaired`. */
export const COVERAGE_FORMAT = 'pulse-archive-coverage/2';

export interface KindCoverage {
  productId: string;
  kind: ArchiveKind;
  status: KindPlan['status'];
  reason?: string;
  /** Listed files that are in the archive after this run (copied now or verified there). */
  archived: string[];
  /** Of those, files whose archived object failed its check and was replaced by a new version this run. */
  repaired: string[];
  /** Listed files that are still not in the archive (their copy failed). */
  missing: string[];
  /** Files whose copy or check failed this run (also those already archived before). */
  failed: string[];
  /** Names rejected as unsafe or malformed. */
  rejected: string[];
}

export interface Coverage {
  format: typeof COVERAGE_FORMAT;
  runId: string;
  manifestKey: string;
  /** As in the manifest: false when the run could not look at everything (a `notListed` or `failed` kind). */
  complete: boolean;
  problems: string[];
  kinds: KindCoverage[];
}

export const fileLabel = (f: Pick<PlannedFile, 'fileDate' | 'stopDate'>): string =>
  f.stopDate === undefined ? f.fileDate : `${f.fileDate}/${f.stopDate}`;

export function buildCoverage(
  run: Pick<Coverage, 'runId' | 'manifestKey' | 'problems'>,
  plans: KindPlan[],
  outcomes: ReadonlyMap<string, CopyOutcome>,
): Coverage {
  const kinds = plans.map((p): KindCoverage => {
    const c: KindCoverage = {
      productId: p.productId,
      kind: p.kind,
      status: p.status,
      ...(p.reason !== undefined ? { reason: p.reason } : {}),
      archived: [],
      repaired: [],
      missing: [],
      failed: [],
      rejected: p.rejected.map((r) => r.fileName),
    };
    for (const f of p.files) {
      const outcome = outcomes.get(f.key);
      const label = fileLabel(f);
      // No outcome = the copy never ran (the run stopped early): treat it like a failure.
      if (outcome === undefined || outcome.outcome === 'failed') {
        c.failed.push(label);
        (f.state === 'present' ? c.archived : c.missing).push(label);
      } else {
        c.archived.push(label);
        if (outcome.outcome === 'repaired') c.repaired.push(label);
      }
    }
    return c;
  });
  return { format: COVERAGE_FORMAT, ...run, complete: run.problems.length === 0, kinds };
}

export const coverageKey = (prefix: string, runId: string): string => keyUnder(prefix, 'coverage', `${runId}.json`);

export async function writeCoverage(store: ArchiveStore, prefix: string, coverage: Coverage): Promise<string> {
  const key = coverageKey(prefix, coverage.runId);
  await store.put(key, `${JSON.stringify(coverage, null, 2)}\n`, {
    contentType: 'application/json',
    ifNoneMatch: true,
  });
  return key;
}
