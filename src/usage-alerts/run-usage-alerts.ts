/**
 * The usage alerts, judged: per rule, the periods to judge (the live run: its last `TELL_PERIODS` complete ones; a
 * backtest: every period it is asked for), the shared report calls for all rules (plan-calls.ts), one series per
 * product or segment, and their state changes (evaluate.ts). The same function runs `pulse usage-alerts`, its
 * backtest, `pulse start` and the scheduled function; what is told to whom is the delivery's business.
 */
import type { ReportingClient } from '../client/index.ts';
import type { PulseConfig } from '../config/schema.ts';
import type { UsageAlertRule } from '../config/usage-alerts-schema.ts';
import type { IsoDate } from '../core/calendar.ts';
import type { JobResult } from '../core/job-result.ts';
import type { ArchiveStore } from '../ports/archive-store.ts';
import type { Clock } from '../ports/clock.ts';
import type { Logger } from '../ports/logger.ts';
import type { SeriesState, UsageAlertStates } from '../ports/usage-alert-states.ts';
import { replay, type StateChange } from './evaluate.ts';
import { type EvidenceLocation, type SeriesWalk, writeEvidence } from './evidence.ts';
import { type CallFailure, fetchAnswers } from './fetch-answers.ts';
import { lastJudgeablePeriod, periodOf, shiftPeriod } from './periods.ts';
import { type CallPlan, callsOf, planUsageCalls } from './plan-calls.ts';
import { type Answers, seriesKey, seriesKeysOf, seriesOf } from './series.ts';
import { type TellOptions, type TellPorts, TOLD_COUNTS, tellChanges } from './tell-changes.ts';
import { tellRuleProblems } from './tell-rule-problems.ts';

/** The live run tells the changes of this many last complete periods: a run missed (or failed) is made up for. */
export const TELL_PERIODS = 3;

export interface UsageAlertPorts {
  client: ReportingClient;
  clock: Clock;
  logger: Logger;
}

export interface JudgeOptions {
  /**
   * The live run's states: each series is judged from the period after its last judged one (at most
   * `TELL_PERIODS` back), starting from its state. Without them every period asked for is judged from a quiet state
   * (a dry run's last periods, a backtest).
   */
  states?: UsageAlertStates | undefined;
  /**
   * A series with no state yet is judged from the period holding this day instead of the last `TELL_PERIODS`, so
   * its first run tells what happened since (`--since`; `pulse start` shows the emulator's planted episodes so).
   */
  since?: IsoDate | undefined;
  /** Only these rules (each must be in the config). */
  ruleIds?: readonly string[] | undefined;
  /** Backtest: judge every period from the one holding `from` to the one holding `to` (or the last complete one). */
  from?: IsoDate | undefined;
  to?: IsoDate | undefined;
}

export type UsageAlertCounts = {
  rules: number;
  series: number;
  /**
   * Report calls made: one per product and metric family, not per rule (exception files: the listing and one per
   * file downloaded; engagement: one per period; plan-calls.ts).
   */
  calls: number;
  /** Rules (among `rules`) whose every series had judged its last settled period: no call made for them. */
  upToDate: number;
  firing: number;
  resolved: number;
};

export interface Judged {
  result: JobResult<UsageAlertCounts>;
  changes: StateChange[];
  /** Each series' state after the judged periods, by series key: written once its changes are told. */
  states: Map<string, SeriesState>;
  /** Per rule, the periods judged. */
  windows: Map<string, { from: IsoDate; to: IsoDate }>;
  /** Rules (per product) that could not be judged this run, and why. */
  problems: RuleProblem[];
  /** The calls made and their answers, by call key: what every figure was computed from. */
  plan: CallPlan;
  answers: ReadonlyMap<string, unknown>;
  /** Each series judged: from which state and over which periods (what a recomputation replays). */
  walks: SeriesWalk[];
  /** The run's time: what its periods were judged as at. */
  at: Date;
}

/** A rule that could not be judged for one product: a call its figures come from failed. */
export interface RuleProblem extends CallFailure {
  ruleId: string;
  productId: string;
}

export async function judgeUsageAlerts(
  config: PulseConfig,
  ports: UsageAlertPorts,
  opts: JudgeOptions = {},
): Promise<Judged> {
  const result: JobResult<UsageAlertCounts> = {
    job: 'usage-alerts',
    ok: true,
    counts: { rules: 0, series: 0, calls: 0, upToDate: 0, firing: 0, resolved: 0 },
    outputs: [],
    errors: [],
  };
  const changes: StateChange[] = [];
  const states = new Map<string, SeriesState>();
  const windows = new Map<string, { from: IsoDate; to: IsoDate }>();
  const problems: RuleProblem[] = [];
  const walks: SeriesWalk[] = [];
  const now = ports.clock.now();
  const empty = {
    result,
    changes,
    states,
    windows,
    problems,
    plan: { calls: [], sources: [] },
    answers: new Map(),
    walks,
    at: now,
  };
  const rules = selectedRules(config, opts.ruleIds, result);
  if (rules.length === 0) return empty;
  // What the calls must cover per rule: from the first period a new series is judged (`since`) to the last judged
  // (each condition's history before it is added by planUsageCalls).
  const fetched = new Map<string, { first: IsoDate; last: IsoDate }>();
  const cachedStates = opts.states ? cachedStore(opts.states) : undefined;
  for (const rule of rules) {
    const unit = rule.period.unit;
    const judgeable = lastJudgeablePeriod(now, unit, rule.settleHours);
    const to = opts.to !== undefined ? minDate(periodOf(opts.to, unit), judgeable) : judgeable;
    const from = opts.from !== undefined ? periodOf(opts.from, unit) : shiftPeriod(to, unit, -(TELL_PERIODS - 1));
    if (from > to) {
      result.errors.push(
        `rule ${rule.id}: nothing to judge between ${from} and ${to} (periods are judged ${rule.settleHours} h after they end)`,
      );
      result.ok = false;
      continue;
    }
    // The live run asks nothing for a rule whose series all judged this period already: run hourly, a daily rule
    // would otherwise make the same calls 23 times a day for nothing new.
    if (opts.states && opts.from === undefined && (await upToDate(rule, to, cachedStates))) {
      result.counts.upToDate++;
      continue;
    }
    windows.set(rule.id, { from, to });
    const since = opts.since !== undefined ? minDate(periodOf(opts.since, unit), from) : from;
    fetched.set(rule.id, { first: since, last: to });
  }
  result.counts.rules = windows.size + result.counts.upToDate;
  const plan = planUsageCalls(rules, fetched);
  let answers: Map<string, unknown>;
  let failed: Map<string, CallFailure>;
  try {
    ({
      answers,
      failed,
      calls: result.counts.calls,
    } = await fetchAnswers(ports.client, plan.calls, config.service.concurrency));
  } catch (e) {
    result.ok = false;
    result.errors.push(`report calls failed: ${(e as Error).name}: ${(e as Error).message}`);
    return { ...empty, plan };
  }
  for (const source of plan.sources) {
    const rule = rules.find((r) => r.id === source.ruleId)!;
    const failure = callsOf(source)
      .map((key) => failed.get(key))
      .find((f) => f !== undefined);
    if (failure) {
      // Its series keep their states: the periods are judged by a later run once the call answers.
      problems.push({ ruleId: rule.id, productId: source.productId, ...failure });
      result.ok = false;
      result.errors.push(`rule ${rule.id}, product ${source.productId}: not judged: ${failure.reason}`);
      continue;
    }
    const window = windows.get(rule.id)!;
    for (const series of seriesOf(rule, source, answers as Answers)) {
      result.counts.series++;
      const key = seriesKey(series);
      const start = cachedStates ? await cachedStates.get(key) : undefined;
      // Periods a run already judged are not judged again: their changes were told (or are being).
      const first = start
        ? maxDate(shiftPeriod(start.lastJudged, rule.period.unit, 1), window.from)
        : fetched.get(rule.id)!.first;
      const judged = replay(rule, series, first, window.to, start);
      walks.push({ key, ...series, start, from: first, to: window.to });
      changes.push(...judged.changes);
      if (judged.state) states.set(key, judged.state);
    }
  }
  for (const c of changes) result.counts[c.state === 'firing' ? 'firing' : 'resolved']++;
  ports.logger.info('usage alerts judged', { ...result.counts, problems: problems.length });
  return { result, changes, states, windows, problems, plan, answers, walks, at: now };
}

function selectedRules(
  config: PulseConfig,
  ruleIds: readonly string[] | undefined,
  result: JobResult<UsageAlertCounts>,
): UsageAlertRule[] {
  const rules = config.usageAlerts?.rules ?? [];
  if (rules.length === 0) {
    result.ok = false;
    result.errors.push('the config has no "usageAlerts" rules');
    return [];
  }
  if (ruleIds === undefined) return rules;
  for (const id of ruleIds)
    if (!rules.some((r) => r.id === id)) {
      result.ok = false;
      result.errors.push(`unknown rule ${id}`);
    }
  return rules.filter((r) => ruleIds.includes(r.id));
}

/** Whether every series of `rule` is known and has judged `last` (a segmented rule's series are not known). */
async function upToDate(
  rule: UsageAlertRule,
  last: IsoDate,
  states: Pick<UsageAlertStates, 'get'> | undefined,
): Promise<boolean> {
  const keys = seriesKeysOf(rule);
  if (!states || !keys) return false;
  for (const key of keys) {
    const state = await states.get(key);
    if (!state || state.lastJudged < last) return false;
  }
  return true;
}

/** The states read once a run: the up-to-date check and the walk read the same series. */
function cachedStore(states: Pick<UsageAlertStates, 'get'>): Pick<UsageAlertStates, 'get'> {
  const read = new Map<string, Promise<SeriesState | undefined>>();
  return {
    get: (key) => {
      let state = read.get(key);
      if (!state) {
        state = states.get(key);
        read.set(key, state);
      }
      return state;
    },
  };
}

const minDate = (a: IsoDate, b: IsoDate): IsoDate => (a < b ? a : b);
const maxDate = (a: IsoDate, b: IsoDate): IsoDate => (a > b ? a : b);

/** The judgement's counts and the telling's (tell-changes.ts `TOLD_COUNTS`). */
export type UsageAlertRunCounts = UsageAlertCounts & Record<(typeof TOLD_COUNTS)[number], number>;

/**
 * The live run: judges each series from its stored state, keeps the run's evidence in the archive (evidence.ts),
 * tells the changes (tell-changes.ts) and the owners of rules the service refuses (tell-rule-problems.ts), then
 * writes the states of the series whose changes reached everyone (or may have: unknown is never told again on its
 * own).
 */
export async function runUsageAlerts(
  config: PulseConfig,
  ports: UsageAlertPorts &
    TellPorts & { usageAlertStates?: UsageAlertStates | undefined; archive?: ArchiveStore | undefined },
  opts: Pick<JudgeOptions, 'ruleIds' | 'since'> & Pick<TellOptions, 'unknownDeliveries' | 'reportDigests'> = {},
): Promise<{ result: JobResult<UsageAlertRunCounts>; changes: StateChange[] }> {
  const states = ports.usageAlertStates;
  const judged = await judgeUsageAlerts(config, ports, { ...opts, ...(states ? { states } : {}) });
  const result: JobResult<UsageAlertRunCounts> = {
    ...judged.result,
    counts: {
      ...judged.result.counts,
      ...{ emails: 0, posts: 0, alreadyTold: 0, failed: 0, unknown: 0, resent: 0, confirmed: 0 },
    },
  };
  if (!states) {
    result.ok = false;
    result.errors.push('this runtime keeps no usage alert states: nothing is told');
    return { result, changes: judged.changes };
  }
  let evidence: EvidenceLocation | undefined;
  if (judged.changes.length > 0) {
    try {
      evidence = await writeEvidence(config, ports.archive, judged);
      result.outputs.push(evidence.uri);
    } catch (e) {
      // Every alert promises its evidence (the raw answers and the figures, to recompute it from): an alert whose
      // evidence is not kept could never be checked, so none is told. No state is written either, so the next run
      // judges the same periods again and tells them with their evidence; a run told nothing yet, so the wait
      // costs a late alert, never a lost or a doubled one.
      result.ok = false;
      result.errors.push(`${(e as Error).name}: ${(e as Error).message}: nothing is told`);
      return { result, changes: judged.changes };
    }
  }
  const told = await tellChanges(config, ports, judged.changes, { ...opts, evidence });
  for (const name of TOLD_COUNTS) result.counts[name] = told[name];
  const owners = await tellRuleProblems(config, ports, judged.problems);
  result.outputs.push(...owners.told);
  if (told.errors.length + owners.errors.length > 0) {
    result.ok = false;
    result.errors.push(...told.errors, ...owners.errors);
  }
  for (const [key, state] of judged.states) {
    if (told.untold.has(key)) continue;
    try {
      await states.put(key, state);
    } catch (e) {
      // Judged again next run: its changes are in the ledger, so nothing is told twice.
      result.ok = false;
      result.errors.push(`state of ${key} not written: ${(e as Error).name}: ${(e as Error).message}`);
    }
  }
  return { result, changes: judged.changes };
}
