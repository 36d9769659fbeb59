/**
 * Every usage alert carries its evidence: a live run with changes to tell first keeps one object in the archive
 * with everything they were judged from — the rules as parsed, each report call (operation, product, request) with
 * its raw `result`, each series' stored state and the periods judged from it, and each change with its figures and
 * verdict — so the alerts can be recomputed from the same answers by the same code (recompute.ts,
 * `pulse usage-alerts recompute`). Each alert names the object (alert-view.ts). The archive is write-once, and so
 * is this: the key holds the run's time and a hash of the content (`putOnce`), and nothing overwrites it.
 */
import { createHash } from 'node:crypto';
import * as z from 'zod';
import { archivePrefixOf, type PulseConfig } from '../config/schema.ts';
import { UsageAlertRule } from '../config/usage-alerts-schema.ts';
import { keyUnder } from '../core/archive-key.ts';
import { parseJsonAs } from '../core/parse-json.ts';
import { putOnce } from '../core/put-once.ts';
import type { ArchiveStore } from '../ports/archive-store.ts';
import type { SeriesState } from '../ports/usage-alert-states.ts';
import type { Point } from './conditions.ts';
import type { StateChange } from './evaluate.ts';
import type { CallFailure } from './fetch-answers.ts';
import type { CallPlan, PlannedCall, RuleSource } from './plan-calls.ts';
import { seriesKey } from './series.ts';

export const EVIDENCE_KIND = 'pulse.usage-alerts.evidence';

/** One series' walk in a run: its stored state before the run, and the periods judged from it. */
export interface SeriesWalk {
  key: string;
  ruleId: string;
  productId: string;
  segment: string | null;
  start: SeriesState | undefined;
  from: string;
  to: string;
  /** The series' figures, every period the calls covered. */
  points: Point[];
}

/** What a judged run (run-usage-alerts.ts `Judged`) holds that its evidence is made of. */
export interface JudgedRun {
  at: Date;
  /** The rules judged, by id. */
  windows: ReadonlyMap<string, unknown>;
  plan: CallPlan;
  answers: ReadonlyMap<string, unknown>;
  walks: readonly SeriesWalk[];
  changes: readonly StateChange[];
  /** Rules (per product) not judged: a call their figures come from failed (run-usage-alerts.ts `RuleProblem`). */
  problems: readonly (CallFailure & { ruleId: string; productId: string })[];
}

/** One report call as made, and its raw `result` (absent when the call failed: `answered` false). */
export type EvidenceCall = PlannedCall & { answered: boolean; result?: unknown };

/** One series judged: its state before the run and the periods judged from it; its figures when it changed. */
export interface EvidenceSeries {
  key: string;
  ruleId: string;
  productId: string;
  segment: string | null;
  /** The stored state the run started from (null: judged for the first time). */
  start: SeriesState | null;
  from: string;
  to: string;
  points?: Point[];
}

/** A change as told, with its series' key and the periods the run judged of that series. */
export type EvidenceChange = StateChange & { series: string; judged: { from: string; to: string } };

export interface UsageAlertEvidence {
  kind: typeof EVIDENCE_KIND;
  version: 1;
  /** The run's time (ISO 8601): which periods were complete and settled. */
  judgedAt: string;
  /** The rules judged, as parsed (defaults filled in). */
  rules: UsageAlertRule[];
  calls: EvidenceCall[];
  /** Which call (and, for a share, which totals; for an event, which selector) each rule and product reads. */
  sources: RuleSource[];
  series: EvidenceSeries[];
  changes: EvidenceChange[];
  /** Rules (per product) not judged: a call their figures come from failed. */
  problems: (CallFailure & { ruleId: string; productId: string })[];
}

/** Where an alert's evidence is: the object key, and the object as an s3:// URI (bucket and key). */
export interface EvidenceLocation {
  key: string;
  uri: string;
}

/** The evidence was not kept: the run tells nothing (run-usage-alerts.ts says why). */
export class EvidenceNotWrittenError extends Error {
  override name = 'EvidenceNotWrittenError';
}

/** An evidence object that cannot be read back (not JSON, not evidence, a field missing or wrong). */
export class EvidenceFormatError extends Error {
  override name = 'EvidenceFormatError';
}

/** The evidence of a judged run: its rules, calls and answers, every series walked and every change. */
export function evidenceOf(config: PulseConfig, judged: JudgedRun): UsageAlertEvidence {
  const changed = new Set(judged.changes.map(seriesKey));
  const walks = new Map(judged.walks.map((w) => [w.key, w]));
  return {
    kind: EVIDENCE_KIND,
    version: 1,
    judgedAt: judged.at.toISOString(),
    rules: (config.usageAlerts?.rules ?? []).filter((r) => judged.windows.has(r.id)),
    calls: judged.plan.calls.map((call) =>
      judged.answers.has(call.key)
        ? { ...call, answered: true, result: judged.answers.get(call.key) }
        : { ...call, answered: false },
    ),
    sources: judged.plan.sources,
    series: judged.walks.map((w) => ({
      key: w.key,
      ruleId: w.ruleId,
      productId: w.productId,
      segment: w.segment,
      start: w.start ?? null,
      from: w.from,
      to: w.to,
      ...(changed.has(w.key) ? { points: w.points } : {}),
    })),
    changes: judged.changes.map((c) => {
      const walk = walks.get(seriesKey(c))!;
      return { ...c, series: walk.key, judged: { from: walk.from, to: walk.to } };
    }),
    problems: [...judged.problems],
  };
}

/**
 * The object's key: `<archive prefix>/usage-alerts/evidence/<UTC date>/<run time>-<12 hex of its SHA-256>.json`
 * (the time with `-` for `:`, as the archive's run ids): found by the day of the run, never the same for two
 * different contents.
 */
export function evidenceKey(prefix: string, judgedAt: string, body: string): string {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  const stamp = judgedAt.replaceAll(':', '-');
  return keyUnder(prefix, 'usage-alerts', 'evidence', judgedAt.slice(0, 10), `${stamp}-${hash}.json`);
}

/** Keeps the run's evidence, once; throws EvidenceNotWrittenError when it cannot. */
export async function writeEvidence(
  config: PulseConfig,
  store: ArchiveStore | undefined,
  judged: JudgedRun,
): Promise<EvidenceLocation> {
  if (!store) throw new EvidenceNotWrittenError('usage alert evidence not written: this runtime keeps no archive');
  const evidence = evidenceOf(config, judged);
  const body = JSON.stringify(evidence, null, 1);
  const key = evidenceKey(archivePrefixOf(config), evidence.judgedAt, body);
  try {
    await putOnce(store, key, body, 'application/json');
  } catch (e) {
    throw new EvidenceNotWrittenError(
      `usage alert evidence ${key} not written: ${(e as Error).name}: ${(e as Error).message}`,
    );
  }
  const bucket = config.archive?.bucket;
  return { key, uri: bucket ? `s3://${bucket}/${key}` : key };
}

const State = z.object({
  firing: z.boolean(),
  since: z.string().optional(),
  lastTold: z.string().optional(),
  lastJudged: z.string(),
});
const PointShape = z.looseObject({ period: z.string(), value: z.number(), volume: z.number() });
const SeriesName = { ruleId: z.string(), productId: z.string(), segment: z.string().nullable() };

/** What an evidence object must hold to be recomputed; the rules are checked as the config checks them. */
const EvidenceShape = z.object({
  kind: z.literal(EVIDENCE_KIND),
  version: z.literal(1),
  judgedAt: z.iso.datetime(),
  rules: z.array(UsageAlertRule),
  calls: z.array(
    z.looseObject({
      key: z.string(),
      operationId: z.string(),
      productId: z.string(),
      request: z.record(z.string(), z.unknown()),
      answered: z.boolean(),
    }),
  ),
  sources: z.array(z.looseObject({ ruleId: z.string(), productId: z.string(), call: z.string() })),
  series: z.array(
    z.object({
      key: z.string(),
      ...SeriesName,
      start: State.nullable(),
      from: z.string(),
      to: z.string(),
      points: z.array(PointShape).optional(),
    }),
  ),
  changes: z.array(
    z.looseObject({
      ...SeriesName,
      period: z.string(),
      state: z.enum(['firing', 'resolved']),
      repeat: z.boolean(),
      verdict: z.looseObject({ state: z.string() }),
      evidence: z.array(PointShape),
      series: z.string(),
      judged: z.object({ from: z.string(), to: z.string() }),
    }),
  ),
  problems: z.array(z.looseObject({ ruleId: z.string(), productId: z.string() })),
});

/** An evidence object's text, checked; `source` names it in the error (a key or a file). */
export function parseEvidence(text: string, source: string): UsageAlertEvidence {
  return parseJsonAs(
    text,
    EvidenceShape,
    (problem) => new EvidenceFormatError(`usage alert evidence ${source} ${problem}`),
  ) as unknown as UsageAlertEvidence;
}
