/**
 * An alert recomputed from its evidence (evidence.ts): each series the run judged is built again from the archived
 * answers (series.ts) and walked again from its recorded state over its recorded periods (evaluate.ts), by the same
 * code a live run uses; the changes found must be the ones the run told. No call is made and no state is read: the
 * evidence alone decides, so anyone with the object can check an alert, and a change in the judging code that
 * would have told something else shows as a difference.
 */
import { changeLine as line } from './change-line.ts';
import { replay, type StateChange } from './evaluate.ts';
import type { UsageAlertEvidence } from './evidence.ts';
import { seriesKey, seriesOf } from './series.ts';

export interface Recomputed {
  /** The recorded changes equal the recomputed ones. */
  same: boolean;
  recorded: StateChange[];
  recomputed: StateChange[];
  /** What differs, one line each: a change only recorded, only recomputed, or a series that cannot be rebuilt. */
  differences: string[];
}

export function recomputeEvidence(evidence: UsageAlertEvidence): Recomputed {
  const rules = new Map(evidence.rules.map((r) => [r.id, r]));
  const answers = new Map(evidence.calls.filter((c) => c.answered).map((c) => [c.key, c.result]));
  const differences: string[] = [];
  const recomputed: StateChange[] = [];
  for (const walk of evidence.series) {
    const rule = rules.get(walk.ruleId);
    const source = evidence.sources.find((s) => s.ruleId === walk.ruleId && s.productId === walk.productId);
    const series = rule && source ? seriesOf(rule, source, answers).find((s) => seriesKey(s) === walk.key) : undefined;
    if (!rule || !series) {
      differences.push(`series ${walk.key}: cannot be rebuilt from the evidence (${rule ? 'no answer' : 'no rule'})`);
      continue;
    }
    recomputed.push(...replay(rule, series, walk.from, walk.to, walk.start ?? undefined).changes);
  }
  const recorded = evidence.changes.map(({ series: _s, judged: _j, ...change }) => change);
  // Both as JSON: the recorded ones went through it (an absent field and `undefined` are alike there).
  const told = new Set(recorded.map(canonical));
  const found = new Set(recomputed.map(canonical));
  for (const c of recorded) if (!found.has(canonical(c))) differences.push(`recorded, not recomputed: ${line(c)}`);
  for (const c of recomputed) if (!told.has(canonical(c))) differences.push(`recomputed, not recorded: ${line(c)}`);
  if (recorded.length !== recomputed.length)
    differences.push(`${recorded.length} changes recorded, ${recomputed.length} recomputed`);
  return { same: differences.length === 0, recorded, recomputed, differences };
}

/** JSON with sorted keys: the same change whatever order its fields were written in. */
function canonical(v: unknown): string {
  const plain = JSON.parse(JSON.stringify(v)) as unknown;
  const sorted = (x: unknown): unknown =>
    Array.isArray(x)
      ? x.map(sorted)
      : x !== null && typeof x === 'object'
        ? Object.fromEntries(
            Object.keys(x)
              .sort()
              .map((k) => [k, sorted((x as Record<string, unknown>)[k])]),
          )
        : x;
  return JSON.stringify(sorted(plain));
}
