/** `pulse licenses report`: the weekly license registry report (docs/licenses.md "Weekly license registry report"). */
import { runLicenseReport } from '../licenses/report/run-license-report.ts';
import { type CliIo, EXIT, parseFlags, UsageError } from './io.ts';
import { JOB_EXIT_CODES_HELP, JOB_OPTIONS, JOB_OPTIONS_HELP, loadJob, report, runJob } from './job-command.ts';
import { unknownDeliveriesOption } from './unknown-deliveries-option.ts';
import { weekOption } from './week-option.ts';

export const LICENSES_REPORT_HELP = `Usage: pulse licenses report [options]

Sends the weekly license registry report for the ISO week that just ended (in the schedule's time zone), at most
once per recipient, and writes each product's registry snapshot (gzip CSV) to the archive.

Options:
${JOB_OPTIONS_HELP.replace('plan and check without sending or writing', 'compute and print the report; send and write nothing')}
  --week 2026-W46    another ISO week: sends its stored report figures (the registry is only read for the week that
                     just ended)
  --resend-unknown   send again the deliveries whose outcome is unknown (check the mail server's log first)
  --confirm-unknown  record the deliveries whose outcome is unknown as delivered, without sending

${JOB_EXIT_CODES_HELP}
  (0: sent or nothing due; 1: a send failed, sent but unconfirmed, a delivery unknown, or a registry record unreadable)
`;

export async function licensesReportCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags('licenses report', args, {
    ...JOB_OPTIONS,
    week: { type: 'string' },
    'resend-unknown': { type: 'boolean' },
    'confirm-unknown': { type: 'boolean' },
  });
  if (values.help) {
    io.stdout.write(LICENSES_REPORT_HELP);
    return EXIT.ok;
  }
  const week = weekOption(values.week as string | undefined);
  const setup = loadJob(values, io);
  if (!setup.config.licenses?.report)
    throw new UsageError('licenses report: the config has no licenses.report section');
  if (!setup.config.archive)
    throw new UsageError('licenses report: the config has no archive section (the snapshots are written there)');
  const dryRun = values['dry-run'] === true;
  const unknownDeliveries = unknownDeliveriesOption(values, dryRun ? '--dry-run' : undefined);
  return runJob('licenses report', setup, io, async (runtime) => {
    const result = await runLicenseReport(runtime.config, runtime.ports, {
      ...(week ? { week } : {}),
      ...(unknownDeliveries ? { unknownDeliveries } : {}),
      dryRun,
    });
    if (dryRun && result.preview && !values.json)
      io.stdout.write(`${result.preview.subject}\n\n${result.preview.text}\n`);
    return report(result, values.json as boolean | undefined, io);
  });
}
