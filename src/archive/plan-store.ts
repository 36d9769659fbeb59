/**
 * A fanned-out run's plan, kept in the archive (`<prefix>/runs/<run-id>/plan.json`, write-once like everything
 * there) so the process that finishes the run, which is not the one that planned it, writes the manifest and
 * coverage report from the very plan the copies were sent from. Read back through a schema, as the queue's
 * messages are: what comes out of storage is checked like any other input.
 */
import * as z from 'zod';
import { ARCHIVE_KINDS } from '../config/schema.ts';
import { keyUnder } from '../core/archive-key.ts';
import { parseJsonAs } from '../core/parse-json.ts';
import type { ArchiveStore } from '../ports/archive-store.ts';
import type { ArchivePlan } from './plan.ts';

export { parseJsonAs };

const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);

export const plannedFileSchema = z.object({
  productId: z.string().min(1),
  kind: z.enum(ARCHIVE_KINDS),
  fileName: z.string().min(1),
  fileDate: date,
  stopDate: date.optional(),
  key: z.string().min(1),
  state: z.enum(['missing', 'present']),
  backfill: z.boolean(),
});

const planSchema = z.object({
  runDate: date,
  kinds: z.array(
    z.object({
      productId: z.string(),
      kind: z.enum(ARCHIVE_KINDS),
      status: z.enum(['listed', 'notEnabled', 'failed']),
      reason: z.string().optional(),
      files: z.array(plannedFileSchema),
      rejected: z.array(
        z.object({ productId: z.string(), kind: z.enum(ARCHIVE_KINDS), fileName: z.string(), reason: z.string() }),
      ),
      openSkipped: z.number().int().nonnegative(),
    }),
  ),
});

export class StoredPlanError extends Error {
  override name = 'StoredPlanError';
}

export const planKey = (prefix: string, runId: string): string => keyUnder(prefix, 'runs', runId, 'plan.json');

export async function savePlan(store: ArchiveStore, prefix: string, runId: string, plan: ArchivePlan): Promise<string> {
  const key = planKey(prefix, runId);
  await store.put(key, JSON.stringify(plan), { contentType: 'application/json', ifNoneMatch: true });
  return key;
}

export async function loadPlan(store: ArchiveStore, key: string): Promise<ArchivePlan> {
  const bytes = await store.get(key);
  if (!bytes) throw new StoredPlanError(`plan ${key} is missing from the archive`);
  const text = Buffer.from(bytes).toString('utf8');
  return parseJsonAs(text, planSchema, (problem) => new StoredPlanError(`plan ${key} ${problem}`)) as ArchivePlan;
}
