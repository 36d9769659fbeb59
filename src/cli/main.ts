/** `pulse <command>`: dispatches to one module per command. */
import packageJson from '../../package.json' with { type: 'json' };
import { API_HELP, apiCommand } from './api-command.ts';
import { ARCHIVE_HELP, archiveCommand } from './archive-command.ts';
import { CONSOLE_HELP, consoleCommand } from './console-command.ts';
import { DIGEST_HELP, digestCommand } from './digest-command.ts';
import { DOCTOR_HELP, doctorCommand } from './doctor-command.ts';
import { EMULATOR_HELP, emulatorCommand } from './emulator-command.ts';
import { exitCodesHelp } from './exit-codes.ts';
import { reportFailure } from './failure.ts';
import { type CliIo, EXIT, UsageError } from './io.ts';
import { LICENSES_HELP, licensesCommand } from './licenses-command.ts';
import { MAIL_HELP, mailCommand } from './mail-command.ts';
import { START_HELP, startCommand } from './start-command.ts';
import { USAGE_ALERTS_HELP, usageAlertsCommand } from './usage-alerts-command.ts';

const HELPS: Record<string, string> = {
  emulator: EMULATOR_HELP,
  api: API_HELP,
  digest: DIGEST_HELP,
  archive: ARCHIVE_HELP,
  'usage-alerts': USAGE_ALERTS_HELP,
  licenses: LICENSES_HELP,
  doctor: DOCTOR_HELP,
  mail: MAIL_HELP,
  start: START_HELP,
  console: CONSOLE_HELP,
};

const HELP = `pulse — weekly digest, export archive and license alerts for a usage-analytics Reporting Service

Usage: pulse <command> [options]

Commands:
  emulator   Run the Reporting Service emulator (service + signed-download storage listener)
  start      Run the weekly cycle locally (in-process emulator, DynamoDB, S3 and SMTP sink)
  console    A read-only web page over a local run's work directory: outbox, archive, ledger, license alerts
  digest     Send the weekly executive digest (or --preview it)
  archive    Archive every export file and the client data in S3, verified and write-once
  licenses   License key alerts, the weekly license registry report, and registry sync from a CSV file
  usage-alerts  Judge usage figures by the config's rules (--dry-run), or replay a rule over history (backtest)
  api        Call any Reporting Service operation by id and print its JSON answer (\`pulse api --list\`)
  doctor     Check a deployment's config from a workstation: service, sign-in, products, bucket, table, mail,
             channels (\`--send-test CHANNEL\` posts one test message)
  mail       Clear an address Pulse stopped mailing after a bounce or complaint (\`pulse mail clear-suppression\`)
  help       Show this help, or \`pulse help <command>\`

Run \`pulse <command> --help\` for a command's options.

Options:
  -h, --help      show this help
  -v, --version   print Pulse's version

${exitCodesHelp({}, "Each command's help says what they mean for it.")}
`;

export async function main(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.stdout.write(HELPS[rest[0] ?? ''] ?? HELP);
        return EXIT.ok;
      case '--version':
      case '-v':
        io.stdout.write(`pulse ${packageJson.version}\n`);
        return EXIT.ok;
      case 'emulator':
        return await emulatorCommand(rest, io);
      case 'start':
        return await startCommand(rest, io);
      case 'console':
        return await consoleCommand(rest, io);
      case 'digest':
        return await digestCommand(rest, io);
      case 'archive':
        return await archiveCommand(rest, io);
      case 'licenses':
        return await licensesCommand(rest, io);
      case 'usage-alerts':
        return await usageAlertsCommand(rest, io);
      case 'api':
        return await apiCommand(rest, io);
      case 'doctor':
        return await doctorCommand(rest, io);
      case 'mail':
        return await mailCommand(rest, io);
      default:
        throw new UsageError(`unknown command ${JSON.stringify(command)}; see \`pulse --help\``);
    }
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr.write(`pulse: ${e.message}\n`);
      return EXIT.usage;
    }
    // Whatever a command did not report itself: one line and an exit code, never an uncaught error's stack trace
    // (which bin/pulse.ts would otherwise get as a rejected top-level await).
    return reportFailure(command ?? '', e, io, { verbose: rest.includes('--verbose') });
  }
}
