/**
 * `pulse mail clear-suppression ADDRESS`: takes an address off the suppression list (src/ports/suppressions.ts),
 * where the mail-events job put it after a hard bounce or a complaint, so the next run of every sender mails it
 * again. The one way an address comes off: logged (a warning line: who was cleared, and what had suppressed it)
 * and printed. `pulse doctor` lists the suppressed addresses.
 */

import { Email } from '../config/schema.ts';
import type { JobResult } from '../core/job-result.ts';
import { exitCodesHelp } from './exit-codes.ts';
import { type CliIo, EXIT, parseFlags, UsageError } from './io.ts';
import { JOB_OPTIONS, loadJob, report, runJob } from './job-command.ts';

export const MAIL_HELP = `Usage: pulse mail clear-suppression ADDRESS [options]

Takes ADDRESS off the suppression list: every Pulse email (digests, license alerts, the license report, the owners'
notices) goes to it again from the next run on. Pulse suppresses an address after a hard bounce or a complaint
(SES reports them; the mail-events function records them) and reports every email it then does not send, with
this command. \`pulse doctor\` lists the suppressed addresses: since when, why, after which delivery.

Options:
  --config FILE      pulse.config.json to use (default $PULSE_CONFIG or ./pulse.config.json): its state table
  --local            the local state table (in-process DynamoDB under --work-dir); the bundled example config
                     unless --config is given
  --work-dir DIR     state of local runs (default .pulse/)
  --json             print one JSON result object on stdout
  --verbose          the stack trace of a failure
  -h, --help         show this help

${exitCodesHelp({ 0: 'the address is mailed again', 1: 'the address was not suppressed (nothing changed), or Pulse failed' })}
`;

const OPTIONS = {
  config: JOB_OPTIONS.config,
  local: JOB_OPTIONS.local,
  'work-dir': JOB_OPTIONS['work-dir'],
  json: JOB_OPTIONS.json,
  verbose: JOB_OPTIONS.verbose,
  help: JOB_OPTIONS.help,
} as const;

export async function mailCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags('mail', args, OPTIONS, true);
  if (values.help || positionals.length === 0) {
    io.stdout.write(MAIL_HELP);
    return values.help ? EXIT.ok : EXIT.usage;
  }
  const [sub, address, ...extra] = positionals;
  if (sub !== 'clear-suppression')
    throw new UsageError(`mail: unknown subcommand ${JSON.stringify(sub)}; see \`pulse mail --help\``);
  if (address === undefined || extra.length > 0)
    throw new UsageError('mail clear-suppression: give exactly one ADDRESS; see `pulse mail --help`');
  if (!Email.safeParse(address).success)
    throw new UsageError(`mail clear-suppression: ${JSON.stringify(address)} is not an email address`);
  const setup = loadJob(values, io, { signIn: false });
  if (!setup.flags.local && !setup.config.state)
    throw new UsageError('mail clear-suppression: the config has no "state" section (the suppression list is there)');
  return runJob(
    'mail clear-suppression',
    setup,
    io,
    async ({ ports }) => {
      const result: JobResult = {
        job: 'mail-clear-suppression',
        ok: true,
        counts: { cleared: 0 },
        outputs: [],
        errors: [],
      };
      const entry = await ports.suppressions.remove(address);
      if (entry === undefined) {
        result.ok = false;
        result.errors.push(`${address.toLowerCase()} was not suppressed (nothing changed)`);
      } else {
        result.counts.cleared = 1;
        ports.logger.warn('suppression cleared: the address is mailed again', { ...entry });
        const why = entry.reason === 'bounce' ? 'a hard bounce' : 'a complaint';
        result.outputs.push(
          `cleared ${entry.address}: suppressed since ${entry.since} after ${why} of ${entry.deliveryKey} (${entry.detail}); mailed again from the next run`,
        );
      }
      return report(result, values.json, io);
    },
    { signIn: false },
  );
}
