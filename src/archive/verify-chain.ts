/**
 * `archive-verify`: the manifests' hash chain checked as a job (manifest.ts `verifyManifestChain`): read-only over
 * the `ArchiveStore`, no service, no sign-in. Run by `pulse archive --verify` and daily in AWS
 * (functions/archive-verify), where a break is the job's failure: `Pulse/JobFailed` for `archive-verify`, the
 * "archive manifest chain broken" alarm.
 */

import type { JobResult } from '../core/job-result.ts';
import type { ArchiveStore } from '../ports/archive-store.ts';
import { verifyManifestChain } from './manifest.ts';

export const ARCHIVE_VERIFY_JOB = 'archive-verify';

export interface VerifyChainCounts extends Record<string, number> {
  manifests: number;
  breaks: number;
}

/** The chain's report as a job result: counts, the latest manifest, one error per break (`<key>: <problem>`). */
export async function verifyArchiveChain(store: ArchiveStore, prefix: string): Promise<JobResult<VerifyChainCounts>> {
  const chain = await verifyManifestChain(store, prefix);
  return {
    job: ARCHIVE_VERIFY_JOB,
    ok: chain.ok,
    counts: { manifests: chain.manifests, breaks: chain.breaks.length },
    outputs: chain.latest ? [chain.latest] : [],
    errors: chain.breaks.map((b) => `${b.key}: ${b.problem}`),
  };
}
