/**
 * `pulse licenses [alerts|report|sync]`: the license duty's commands, one module each (licenses-*-command.ts),
 * listed in SUBCOMMANDS. Without a subcommand (or with options first) it runs the alerts.
 */
import { exitCodesHelp } from './exit-codes.ts';
import { type CliIo, UsageError } from './io.ts';
import { LICENSES_ALERTS_HELP, licensesAlertsCommand } from './licenses-alerts-command.ts';
import { LICENSES_REPORT_HELP, licensesReportCommand } from './licenses-report-command.ts';
import { LICENSES_SYNC_HELP, licensesSyncCommand } from './licenses-sync-command.ts';

interface Subcommand {
  run(args: string[], io: CliIo): Promise<number>;
  help: string;
}

/** One entry per subcommand; `alerts` is the default. */
const SUBCOMMANDS: Record<string, Subcommand> = {
  report: { run: licensesReportCommand, help: LICENSES_REPORT_HELP },
  sync: { run: licensesSyncCommand, help: LICENSES_SYNC_HELP },
  alerts: { run: licensesAlertsCommand, help: LICENSES_ALERTS_HELP },
};

export const LICENSES_HELP = `Usage: pulse licenses [alerts|report|sync] [options]

  alerts   (default) alert the owners of expiring, expired, over-quota and blocked-but-used keys, once per stage
  report   the weekly license registry report, and a snapshot of the registry in the archive
  sync     insert and update registry keys from a CSV file, with a result file per row

Options:
  -h, --help   show this help
  Without a subcommand the options are the alerts': \`pulse licenses alerts --help\`; each subcommand's are in
  \`pulse licenses <subcommand> --help\`.

${exitCodesHelp({}, "Each subcommand's help says what 0 and 1 mean for it.")}
`;

export async function licensesCommand(args: string[], io: CliIo): Promise<number> {
  const [first, ...rest] = args;
  if (first === undefined || first.startsWith('-')) {
    if (first === '--help' || first === '-h') {
      io.stdout.write(LICENSES_HELP);
      return 0;
    }
    return run('alerts', args, io);
  }
  return run(first, rest, io);
}

function run(name: string, args: string[], io: CliIo): Promise<number> {
  const sub = SUBCOMMANDS[name];
  if (!sub) throw new UsageError(`licenses: unknown subcommand ${JSON.stringify(name)}; see \`pulse licenses --help\``);
  return sub.run(args, io);
}
