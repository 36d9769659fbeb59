/** `pulse <command>`: dispatches to one module per command. */
import { API_HELP, apiCommand } from './api-command.ts';
import { EMULATOR_HELP, emulatorCommand } from './emulator-command.ts';
import { type CliIo, EXIT, UsageError } from './io.ts';

const HELP = `pulse — weekly digest, export archive and license alerts for a usage-analytics Reporting Service

Usage: pulse <command> [options]

Commands:
  emulator   Run the Reporting Service emulator (service + signed-download storage listener)
  start      Run Pulse locally (today: starts the emulator and shows how to call it)
  api        Call any Reporting Service operation by id and print its JSON answer (\`pulse api --list\`)
  help       Show this help, or \`pulse help <command>\`

Run \`pulse <command> --help\` for a command's options.
`;

export async function main(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.stdout.write(rest[0] === 'emulator' ? EMULATOR_HELP : rest[0] === 'api' ? API_HELP : HELP);
        return EXIT.ok;
      case 'emulator':
        return await emulatorCommand(rest, io);
      case 'start':
        return await emulatorCommand(rest, io, { hint: true });
      case 'api':
        return await apiCommand(rest, io);
      default:
        throw new UsageError(`unknown command ${JSON.stringify(command)}; see \`pulse --help\``);
    }
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr.write(`pulse: ${e.message}\n`);
      return EXIT.usage;
    }
    throw e;
  }
}
