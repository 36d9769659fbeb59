/**
 * `pulse start` (what `npm start` runs): the weekly cycle on this machine — every job against in-process local peers
 * (emulator, DynamoDB, S3, SMTP sink), state kept in the work directory so a second run sees the first.
 */
import { parseArgs } from 'node:util';
import { DEFAULT_WORK_DIR } from '../adapters/local/work-dir.ts';
import { addDays } from '../core/calendar.ts';
import { archiveCommand } from './archive-command.ts';
import { CONSOLE_DEFAULT_PORT } from './console-command.ts';
import { digestCommand } from './digest-command.ts';
import { exitCodesHelp } from './exit-codes.ts';
import { type CliIo, EXIT } from './io.ts';
import { loadJob } from './job-command.ts';
import { licensesAlertsCommand } from './licenses-alerts-command.ts';
import { licensesReportCommand } from './licenses-report-command.ts';
import { usageAlertsCommand } from './usage-alerts-command.ts';

/** How far a first local run of the usage alerts looks back: the planted episodes are at most 35 days old. */
export const USAGE_ALERTS_SINCE_DAYS = 42;

export const START_HELP = `Usage: pulse start [options]

Runs the weekly cycle locally: the digest for the week that just ended, sent to the local SMTP sink
(<work-dir>/outbox/*.eml and *.html) and archived in the local S3 (<work-dir>/s3); then the export archive (every
export file and the client data, with a manifest and coverage report per run) into the same S3; then the license
alerts (when the config has a "licenses" section), one email per recipient into the same outbox. A second run sees
the first: already-sent digests and alerts and already-archived files are skipped. Then the weekly license
registry report (when the config has "licenses.report"). Then the usage alerts (when the config has "usageAlerts"):
a first run judges the last ${USAGE_ALERTS_SINCE_DAYS} days, so the example rules show the emulator's planted episodes firing and
resolving. Every message to a Slack, Teams or webhook channel goes to the local channel sinks:
<work-dir>/outbox/channels/<channel>/ holds each payload (.json) and a preview (.html).

Options:
  --config FILE      the config to run (default: the bundled examples/pulse.config.json)
  --work-dir DIR     state of local runs (default ${DEFAULT_WORK_DIR}/)
  --faults FILE      run the in-process emulator with this fault profile (see \`pulse emulator --faults\`)
  --json             one JSON result object per job on stdout (digest, archive, licenses, usage alerts; and mail-events after
                     a job whose mail the SMTP sink bounced or complained about: $PULSE_LOCAL_BOUNCE,
                     $PULSE_LOCAL_COMPLAIN, \`pulse digest --help\`)
  --dry-run          plan and check without sending or writing
  --verbose          more log lines, and the stack trace of a failure
  -h, --help         show this help

${exitCodesHelp(
  {
    0: 'every job did what it should',
    1: 'a job held or failed something (listed on stderr and in --json "errors"), or Pulse failed',
  },
  "The worst of the jobs' codes; when the digest could not run at all (3, 4, 5), the later jobs do not run.",
)}
`;

export async function startCommand(args: string[], io: CliIo): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout.write(START_HELP);
    return 0;
  }
  // Bad arguments throw a usage error from the digest command, before the archive starts.
  const digest = await digestCommand(['--local', ...args], io);
  // The digest could not run at all (credentials, a peer, the network): the archive would fail the same way.
  if (digest > EXIT.failure) return digest;
  const archive = await archiveCommand(['--local', ...args], io);
  // The same config the digest command loaded (bad arguments would have stopped it): alerts only when configured.
  const sections = licenseSections(args, io);
  const licenses = sections.alerts ? await licensesAlertsCommand(['--local', ...args], io) : EXIT.ok;
  const licenseReport = sections.report ? await licensesReportCommand(['--local', ...args], io) : EXIT.ok;
  // A series judged for the first time looks back far enough to meet the emulator's planted episodes.
  const since = addDays(new Date().toISOString().slice(0, 10), -USAGE_ALERTS_SINCE_DAYS);
  const usage = sections.usageAlerts ? await usageAlertsCommand(['--local', '--since', since, ...args], io) : EXIT.ok;
  // The worst of them: 1 when any job held or failed something.
  const code = Math.max(digest, archive, licenses, licenseReport, usage);
  if (!args.includes('--json')) {
    // The digest command validated the arguments; this only needs --work-dir in either spelling (`--work-dir=D`).
    const { values } = parseArgs({ args, strict: false, options: { 'work-dir': { type: 'string' } } });
    const dir = typeof values['work-dir'] === 'string' ? values['work-dir'] : DEFAULT_WORK_DIR;
    io.stdout.write(
      `Emails, channel messages (outbox/channels/) and each digest's full report: ${dir}/outbox/  ·  archive: ${dir}/s3/  ·  run again to see exactly-once delivery and archiving\n`,
    );
    io.stdout.write(
      `See it in a browser: npx pulse console${dir === DEFAULT_WORK_DIR ? '' : ` --work-dir ${dir}`}  (http://127.0.0.1:${CONSOLE_DEFAULT_PORT}/)\n`,
    );
  }
  return code;
}

/** Which of the later jobs the config of this run (--config, else the bundled example) has. */
function licenseSections(args: string[], io: CliIo): { alerts: boolean; report: boolean; usageAlerts: boolean } {
  const { values } = parseArgs({ args, strict: false, options: { config: { type: 'string' } } });
  const config = typeof values.config === 'string' ? values.config : undefined;
  const { licenses, archive, usageAlerts } = loadJob({ local: true, config }, io).config;
  // The report keeps its snapshots in the archive: without one, `pulse licenses report` refuses to run.
  return {
    alerts: licenses !== undefined,
    report: licenses?.report !== undefined && archive !== undefined,
    usageAlerts: usageAlerts !== undefined,
  };
}
