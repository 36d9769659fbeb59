/** `pulse usage-alerts`: usage figures judged by the config's rules (docs/usage-alerts.md). */

import type { IsoDate } from '../core/calendar.ts';
import type { JobResult } from '../core/job-result.ts';
import { changeLine } from '../usage-alerts/change-line.ts';
import { type Judged, judgeUsageAlerts, runUsageAlerts } from '../usage-alerts/run-usage-alerts.ts';
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
import { unknownDeliveriesOption } from './unknown-deliveries-option.ts';
import { usageAlertsRecomputeCommand } from './usage-alerts-recompute.ts';

export const USAGE_ALERTS_HELP = `Usage: pulse usage-alerts [options]
       pulse usage-alerts backtest --rule ID --from YYYY-MM-DD [--to YYYY-MM-DD] [options]
       pulse usage-alerts recompute --evidence KEY|FILE [--json] (see its --help)

Judges the service's usage figures by the config's usageAlerts rules, each series (rule, product, segment) from
the periods after its last judged one (periods are judged once they ended settleHours ago), with one report call
per product and metric family shared by all rules, and tells each recipient what started firing or resolved: one
email (or one post per channel) with every rule's changes and the chart of each, at most once. A rule the service
refuses for a product (a property it lacks, say) is not judged there, and its owner is emailed once about it.
--dry-run prints what a run would tell and sends nothing.

A message whose delivery is unknown (the connection dropped after the mail server or the chat service took it) is
never sent again on its own; its changes are kept for --resend-unknown or --confirm-unknown, which the run applies
to every recipient of the rules it judges (webhooks are posted again by the next run: a program takes duplicates).

backtest replays rules over history: every period from --from to --to (default: the last complete one), and
prints when each would have fired and resolved (--json: every change with its figures), to tune a rule before it
goes live.

recompute checks a run's alerts against the evidence it kept in the archive (each alert names it).

Options:
${JOB_OPTIONS_HELP}
  --rule ID          only this rule (repeatable; must be in the config)
  --since DATE       a series judged for the first time (a new rule, product or segment) is judged from this
                     day's period instead of the last 3, and tells what happened since
  --from DATE        backtest: the first day to judge (its period)
  --to DATE          backtest: the last day to judge (its period)
  --resend-unknown   send again the changes whose earlier message may or may not have gone out, in each
                     recipient's message of this run (check the mail server's log or the channel first)
  --confirm-unknown  record those changes as delivered, without sending (the mail server's log or the channel
                     showed the message)

${JOB_EXIT_CODES_HELP}
  (0: every rule judged and told; 1: a rule could not be judged, a report call failed, or a message was not sent)
`;

const OPTIONS = {
  ...JOB_OPTIONS,
  rule: { type: 'string', multiple: true },
  from: { type: 'string' },
  to: { type: 'string' },
  since: { type: 'string' },
  'resend-unknown': { type: 'boolean' },
  'confirm-unknown': { type: 'boolean' },
} as const;

export async function usageAlertsCommand(args: string[], io: CliIo): Promise<number> {
  if (args[0] === 'recompute') return usageAlertsRecomputeCommand(args.slice(1), io);
  const backtest = args[0] === 'backtest';
  const { values } = parseFlags('usage-alerts', backtest ? args.slice(1) : args, OPTIONS);
  if (values.help) {
    io.stdout.write(USAGE_ALERTS_HELP);
    return EXIT.ok;
  }
  const from = dateFlag('--from', values.from);
  const to = dateFlag('--to', values.to);
  const since = dateFlag('--since', values.since);
  const looks = backtest ? 'backtest' : values['dry-run'] ? '--dry-run' : undefined;
  const unknownDeliveries = unknownDeliveriesOption(values, looks);
  if (backtest && since !== undefined) throw new UsageError('--since goes with a run; a backtest judges from --from');
  if (backtest && from === undefined) throw new UsageError('backtest: --from YYYY-MM-DD is required');
  if (!backtest && (from !== undefined || to !== undefined))
    throw new UsageError('--from and --to go with `pulse usage-alerts backtest`');
  if (from !== undefined && to !== undefined && from > to) throw new UsageError(`--from ${from} is after --to ${to}`);
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
  const dryRun = values['dry-run'] === true;
  const job = async ({ config, ports }: JobRuntime) => {
    if (!backtest && !dryRun) {
      const { result, changes } = await runUsageAlerts(config, ports, { ruleIds, since, unknownDeliveries });
      return print({ result, changes }, { json, told: true }, io);
    }
    // A dry run reads the states (what a run would tell now); a backtest walks from a quiet state.
    const states = backtest ? undefined : ports.usageAlertStates;
    const judged = await judgeUsageAlerts(config, ports, { ruleIds, from, to, states, since });
    return print(judged, { json, told: false, backtest }, io);
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

function print(
  { result, changes, windows }: Pick<Judged, 'changes'> & { result: JobResult; windows?: Judged['windows'] },
  opts: { json: boolean; told: boolean; backtest?: boolean },
  io: CliIo,
): number {
  if (opts.json) {
    const periods = windows ? { periods: Object.fromEntries(windows) } : {};
    io.stdout.write(`${JSON.stringify({ ...result, ...periods, changes })}\n`);
  } else {
    const c = result.counts;
    const decided = `${c.resent ? `, ${c.resent} sent again` : ''}${c.confirmed ? `, ${c.confirmed} confirmed` : ''}`;
    const said = opts.told
      ? `: ${c.emails} emails, ${c.posts} posts, ${c.alreadyTold} already told${decided}`
      : opts.backtest
        ? ''
        : ' would be told';
    io.stdout.write(
      `usage-alerts: ${result.ok ? 'ok' : 'NOT ok'} (${c.rules} rules${c.upToDate ? `, ${c.upToDate} up to date` : ''}, ` +
        `${c.series} series, ${c.calls} report calls: ` +
        `${c.firing} firing, ${c.resolved} resolved${said})\n`,
    );
    for (const change of changes) io.stdout.write(`  ${changeLine(change)}\n`);
    for (const output of result.outputs) io.stdout.write(`  ${output}\n`);
    for (const e of result.errors) io.stderr.write(`  error: ${e}\n`);
  }
  return result.ok ? EXIT.ok : EXIT.failure;
}
