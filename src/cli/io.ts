import { parseArgs } from 'node:util';

/** What a command may touch of the process: injected so commands run in tests without spawning. */
export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  env: Record<string, string | undefined>;
}

export { EXIT } from './exit-codes.ts';

/**
 * The `pulse` process's own io (bin/pulse.ts). A reader that goes away (`pulse start | head -1`) ends the output
 * quietly and never the work: without a listener its EPIPE is an uncaught 'error' event that kills the process
 * mid-job with a stack trace. With it, the stream is destroyed and drops later writes silently, the jobs run to the
 * end and the exit code stays theirs. Any other error of the streams is still thrown, as before.
 */
export function processIo(): CliIo {
  for (const stream of [process.stdout, process.stderr]) stream.on('error', ignoreClosedReader);
  return { stdout: process.stdout, stderr: process.stderr, env: process.env };
}

function ignoreClosedReader(e: NodeJS.ErrnoException): void {
  if (e.code !== 'EPIPE') throw e;
}

export class UsageError extends Error {
  override name = 'UsageError';
}

/**
 * `util.parseArgs`, strict, with its errors as UsageError (exit 2) naming the command's help. Every command parses
 * its flags through here so bad flags read the same everywhere.
 */
export function parseFlags<const O extends import('node:util').ParseArgsOptionsConfig>(
  command: string,
  args: string[],
  options: O,
  allowPositionals = false,
) {
  try {
    return parseArgs({ args, options, allowPositionals, strict: true });
  } catch (e) {
    throw new UsageError(`${(e as Error).message.replace(/\. To specify .*$/s, '')}; see \`pulse ${command} --help\``);
  }
}
