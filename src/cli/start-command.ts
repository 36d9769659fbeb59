/**
 * `pulse start` (what `npm start` runs): the weekly cycle on this machine — every job against in-process local peers
 * (emulator, DynamoDB, S3, SMTP sink), state kept in the work directory so a second run sees the first.
 */
import { parseArgs } from 'node:util';
import { DEFAULT_WORK_DIR } from '../adapters/local/work-dir.ts';
import { archiveCommand } from './archive-command.ts';
import { digestCommand } from './digest-command.ts';
import { type CliIo, EXIT } from './io.ts';
import { loadJob } from './job-command.ts';
import { licensesAlertsCommand } from './licenses-alerts-command.ts';

export const START_HELP = `Usage: pulse start [--work-dir DIR] [--json] [--faults FILE] [--verbose]

Runs the weekly cycle locally: the digest for the week that just ended, sent to the local SMTP sink
(<work-dir>/outbox/*.eml and *.html) and archived in the local S3 (<work-dir>/s3); then the export archive (every
export file and the client data, with a manifest and coverage report per run) into the same S3; then the license
alerts (when the config has a "licenses" section), one email per recipient into the same outbox.
Default work dir: ${DEFAULT_WORK_DIR}/. A second run sees the first: already-sent digests and alerts and
already-archived files are skipped. With --json, one result line per job (digest, archive, licenses; and
mail-events after a job whose mail the SMTP sink bounced or complained about: $PULSE_LOCAL_BOUNCE,
$PULSE_LOCAL_COMPLAIN, \`pulse digest --help\`). --faults runs
the in-process emulator with that fault profile; exit codes as in \`pulse digest --help\` (the worst of the jobs;
the later jobs do not run when the digest could not run at all).
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
  const licenses = hasLicenses(args, io) ? await licensesAlertsCommand(['--local', ...args], io) : EXIT.ok;
  // The worst of them: 1 when any job held or failed something.
  const code = Math.max(digest, archive, licenses);
  if (!args.includes('--json')) {
    // The digest command validated the arguments; this only needs --work-dir in either spelling (`--work-dir=D`).
    const { values } = parseArgs({ args, strict: false, options: { 'work-dir': { type: 'string' } } });
    const dir = typeof values['work-dir'] === 'string' ? values['work-dir'] : DEFAULT_WORK_DIR;
    io.stdout.write(
      `Emails and each digest's full report: ${dir}/outbox/  ·  archive: ${dir}/s3/  ·  run again to see exactly-once delivery and archiving\n`,
    );
  }
  return code;
}

/** Whether the config of this run (--config, else the bundled example) has a `licenses` section. */
function hasLicenses(args: string[], io: CliIo): boolean {
  const { values } = parseArgs({ args, strict: false, options: { config: { type: 'string' } } });
  const config = typeof values.config === 'string' ? values.config : undefined;
  return loadJob({ local: true, config }, io).config.licenses !== undefined;
}
