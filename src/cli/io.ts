import { parseArgs } from 'node:util';

/** What a command may touch of the process: injected so commands run in tests without spawning. */
export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  env: Record<string, string | undefined>;
}

export { EXIT } from './exit-codes.ts';

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
