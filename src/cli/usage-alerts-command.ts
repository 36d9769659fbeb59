/** `pulse usage-alerts`: usage figures judged by the config's rules (docs/usage-alerts.md). */

import type { IsoDate } from '../core/calendar.ts';
import type { StateChange } from '../usage-alerts/evaluate.ts';
import { type Judged, judgeUsageAlerts } from '../usage-alerts/run-usage-alerts.ts';
import { type CliIo, EXIT, parseFlags, UsageError } from './io.ts';
import {
  JOB_EXIT_CODES_HELP,
  JOB_OPTIONS,
  JOB_OPTIONS_HELP,
  type JobRuntime,
  loadJob,
  requireKnown,
  runJob,
} from './job-command.ts';

export const USAGE_ALERTS_HELP = `Usage: pulse usage-alerts --dry-run [options]
       pulse usage-alerts backtest --rule ID --from YYYY-MM-DD [--to YYYY-MM-DD] [options]

Judges the service's usage figures by the config's usageAlerts rules: each rule's last complete periods (judged
once they ended settleHours ago), with one report call per product and metric family shared by all rules.
--dry-run prints what a run would tell: each rule, product or segment that starts firing or resolves.

backtest replays rules over history: every period from --from to --to (default: the last complete one), and
prints when each would have fired and resolved (--json: every change with its figures), to tune a rule before it
goes live.

Options:
${JOB_OPTIONS_HELP}
  --rule ID          only this rule (repeatable; must be in the config)
  --from DATE        backtest: the first day to judge (its period)
  --to DATE          backtest: the last day to judge (its period)

${JOB_EXIT_CODES_HELP}
  (0: every rule judged; 1: a rule could not be judged or a report call failed)
`;

const OPTIONS = {
  ...JOB_OPTIONS,
  rule: { type: 'string', multiple: true },
  from: { type: 'string' },
  to: { type: 'string' },
} as const;

export async function usageAlertsCommand(args: string[], io: CliIo): Promise<number> {
  const backtest = args[0] === 'backtest';
  const { values } = parseFlags('usage-alerts', backtest ? args.slice(1) : args, OPTIONS);
  if (values.help) {
    io.stdout.write(USAGE_ALERTS_HELP);
    return EXIT.ok;
  }
  const from = dateFlag('--from', values.from);
  const to = dateFlag('--to', values.to);
  if (backtest && from === undefined) throw new UsageError('backtest: --from YYYY-MM-DD is required');
  if (!backtest && (from !== undefined || to !== undefined))
    throw new UsageError('--from and --to go with `pulse usage-alerts backtest`');
  if (from !== undefined && to !== undefined && from > to) throw new UsageError(`--from ${from} is after --to ${to}`);
  // Telling people is the next step of this job; until it is built a run only judges, and says so.
  if (!backtest && values['dry-run'] !== true)
    throw new UsageError(
      'sending usage alerts is not available yet: `--dry-run` shows what a run would tell, `backtest` replays a rule',
    );
  const setup = loadJob(values, io);
  const rules = setup.config.usageAlerts?.rules ?? [];
  if (rules.length === 0) throw new UsageError('usage-alerts: the config has no "usageAlerts" rules');
  const ruleIds = values.rule as string[] | undefined;
  requireKnown(
    '--rule',
    ruleIds,
    rules.map((r) => r.id),
    "the config's usageAlerts rules",
  );
  const json = values.json === true;
  const job = async ({ config, ports }: JobRuntime) => {
    const judged = await judgeUsageAlerts(config, ports, { ruleIds, from, to });
    return print(judged, { json, backtest }, io);
  };
  return runJob('usage-alerts', setup, io, job);
}

function dateFlag(flag: string, value: unknown): IsoDate | undefined {
  if (value === undefined) return undefined;
  const text = String(value);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text) || Number.isNaN(Date.parse(`${text}T00:00:00Z`)))
    throw new UsageError(`${flag} ${JSON.stringify(text)}: a date YYYY-MM-DD`);
  return text;
}

function print({ result, changes, windows }: Judged, opts: { json: boolean; backtest: boolean }, io: CliIo): number {
  if (opts.json) {
    const judgedPeriods = Object.fromEntries(windows);
    io.stdout.write(`${JSON.stringify({ ...result, periods: judgedPeriods, changes })}\n`);
  } else {
    const c = result.counts;
    io.stdout.write(
      `usage-alerts: ${result.ok ? 'ok' : 'NOT ok'} (${c.rules} rules, ${c.series} series, ${c.calls} report calls: ` +
        `${c.firing} firing, ${c.resolved} resolved${opts.backtest ? '' : ' would be told'})\n`,
    );
    for (const change of changes) io.stdout.write(`  ${line(change)}\n`);
    for (const e of result.errors) io.stderr.write(`  error: ${e}\n`);
  }
  return result.ok ? EXIT.ok : EXIT.failure;
}

/** `2026-11-24  exceptions-spike  12345678901  firing   212 is above 100` */
function line(c: StateChange): string {
  const where = c.segment === null ? c.productId : `${c.productId} ${c.segment}`;
  const state = c.repeat ? 'firing (still)' : c.state;
  return `${c.period}  ${c.ruleId}  ${where}  ${state.padEnd(8)}  ${c.verdict.reason}`;
}
