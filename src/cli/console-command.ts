/**
 * `pulse console`: serves the read-only console (src/console/) over a local work directory on 127.0.0.1 until
 * interrupted, and prints its address. The console reads the local peers' files with their own packages
 * (devDependencies), so it is loaded only when this command runs, like the local runtime.
 */
import { resolve } from 'node:path';
import { DEFAULT_WORK_DIR } from '../adapters/local/work-dir.ts';
import { loadLocalRuntime } from '../app/load-local-runtime.ts';
import { exitCodesHelp } from './exit-codes.ts';
import { type CliIo, EXIT, parseFlags, UsageError } from './io.ts';

/** The console's port unless --port says otherwise (the one default: startConsole takes a port). */
export const CONSOLE_DEFAULT_PORT = 4173;

export const CONSOLE_HELP = `Usage: pulse console [--work-dir DIR] [--port P] [--host H]

Serves a read-only web page over the work directory of a local run (\`npm start\`): the outbox (each message as its
reader sees it, images included, and the full reports), the archive (objects by run with their SHA-256, the
manifest chain verified, coverage by day and kind), the ledger (what was sent to whom, when, in which state; the
unknown deliveries first) and the license alert state per key and stage. It never writes the work directory, and
can stay open while \`npm start\` runs again. Ctrl-C stops it.

Options:
  --work-dir DIR  the local run's work directory (default ${DEFAULT_WORK_DIR}/)
  --port P        port (default ${CONSOLE_DEFAULT_PORT}; 0 = any free port)
  --host H        loopback address to listen on (default 127.0.0.1; also ::1 or localhost); any other is refused
  -h, --help      show this help

${exitCodesHelp({
  0: 'the console ran until Ctrl-C',
  1: 'the console failed',
  2: 'usage error (a bad option, a non-loopback --host, a port in use): nothing was started',
})}
`;

type ConsoleModule = typeof import('../console/console-server.ts');

/**
 * The console module, through loadLocalRuntime's translation of a missing devDependency into
 * LocalPeersMissingError (exit 2, saying what to install).
 */
const loadConsole = (): Promise<ConsoleModule> =>
  loadLocalRuntime<ConsoleModule>(() => import('../console/console-server.ts'));

export async function consoleCommand(
  args: string[],
  io: CliIo,
  /** Stops the console when it settles; default: SIGINT or SIGTERM. For tests. */
  opts: { until?: Promise<unknown> } = {},
): Promise<number> {
  const { values } = parseFlags('console', args, {
    'work-dir': { type: 'string' },
    port: { type: 'string' },
    host: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout.write(CONSOLE_HELP);
    return EXIT.ok;
  }
  const port = values.port ?? String(CONSOLE_DEFAULT_PORT);
  if (!/^\d+$/.test(port) || Number(port) > 65_535) {
    throw new UsageError(`--port: expected a port number from 0 to 65535, got ${JSON.stringify(port)}`);
  }
  const host = values.host ?? '127.0.0.1';
  const workDir = resolve(values['work-dir'] ?? DEFAULT_WORK_DIR);
  const { startConsole, isLoopback } = await loadConsole();
  if (!isLoopback(host)) {
    throw new UsageError(
      `--host ${JSON.stringify(host)} is not a loopback address: the console serves this machine only (127.0.0.1, ::1 or localhost)`,
    );
  }
  let running: Awaited<ReturnType<typeof startConsole>>;
  try {
    running = await startConsole({ workDir, host, port: Number(port) });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new UsageError(`port ${port} is in use: pick another --port (0 = any free port)`);
    if (code === 'EADDRNOTAVAIL') throw new UsageError(`--host ${host}: no such address on this machine`);
    throw e;
  }
  io.stdout.write(`console: ${running.url}  (read-only view of ${workDir}; Ctrl-C to stop)\n`);
  await (opts.until ?? signalled());
  await running.close();
  return EXIT.ok;
}

function signalled(): Promise<void> {
  return new Promise<void>((done) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      done();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
