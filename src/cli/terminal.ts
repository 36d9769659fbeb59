/**
 * Terminal plumbing for commands: a no-echo password prompt, JSON arguments with precise syntax errors, and stdout
 * that respects back-pressure and a reader that goes away (`| head`).
 */
import { type EventEmitter, once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { jsonSyntaxError } from '../config/messages.ts';
import { type CliIo, UsageError } from './io.ts';

/** stdin for the password prompt; `process.stdin` by default (tests pass a fake terminal). */
export type PromptInput = NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?(raw: boolean): unknown };

/** Ctrl-C at the password prompt: nothing was sent anywhere. */
export class PromptCancelledError extends UsageError {
  override name = 'PromptCancelledError';
}

/**
 * Reads a password from the terminal without echoing it; refuses (naming `envName`) when stdin is not a terminal.
 * The line editing is node:readline's, with everything it would draw thrown away: arrow keys move the cursor (never
 * into the password as escape sequences), Backspace deletes, Ctrl-U clears up to the cursor, Enter ends, Ctrl-C
 * cancels (PromptCancelledError), Ctrl-D on an empty line ends with nothing (refused as an empty password).
 */
export function promptPassword(stdin: PromptInput, stderr: CliIo['stderr'], label: string, envName: string) {
  if (!stdin.isTTY || !stdin.setRawMode)
    return Promise.reject(new UsageError(`no password: set ${envName} (stdin is not a terminal to ask on)`));
  stderr.write(`${label}: `);
  const muted = new Writable({ write: (_chunk, _encoding, done) => done() });
  const rl = createInterface({ input: stdin, output: muted, terminal: true, historySize: 0 });
  return new Promise<string>((resolve, reject) => {
    let outcome: { value: string } | { error: Error } = { error: new UsageError('empty password') };
    rl.once('line', (line) => {
      outcome = line === '' ? outcome : { value: line };
      rl.close();
    });
    rl.once('SIGINT', () => {
      outcome = { error: new PromptCancelledError('password prompt cancelled') };
      rl.close();
    });
    // readline leaves raw mode and pauses stdin when it closes.
    rl.once('close', () => {
      stderr.write('\n');
      if ('value' in outcome) resolve(outcome.value);
      else reject(outcome.error);
    });
  });
}

/** A JSON option value: JSON text, or `@path` of a JSON file; a syntax error names line, column and position. */
export async function readJsonArgument(flag: string, arg: string): Promise<unknown> {
  let text = arg;
  if (arg.startsWith('@')) {
    try {
      text = await readFile(arg.slice(1), 'utf8');
    } catch (e) {
      throw new UsageError(`${flag}: cannot read ${arg.slice(1)}: ${(e as NodeJS.ErrnoException).code ?? e}`);
    }
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${flag}: invalid JSON ${jsonSyntaxError(text, e)}`);
  }
}

export interface Output {
  write(text: string): Promise<void>;
  /** The reader closed the pipe: stop producing. */
  readonly closed: boolean;
  /** Waits for the error of a last failed write; throws it unless it was EPIPE. */
  close(): Promise<void>;
}

/**
 * stdout with back-pressure (a large export piped to a slow reader), where a reader that goes away early
 * (`pulse api … | head`) ends the output quietly instead of crashing the process with EPIPE.
 */
export function outputOf(stdout: CliIo['stdout']): Output {
  const out = stdout as CliIo['stdout'] & Partial<Pick<EventEmitter, 'on' | 'once'>> & { destroyed?: boolean };
  // A reader gone before this output began (processIo in io.ts let the stream drop its writes): no 'drain' comes.
  let closed = out.destroyed === true;
  let failure: Error | undefined;
  const onError = (e: NodeJS.ErrnoException) => {
    closed = true;
    if (e.code !== 'EPIPE') failure = e;
  };
  out.on?.('error', onError);
  return {
    get closed() {
      return closed;
    },
    async write(text) {
      if (!closed && text !== '' && out.write(text) === false && out.once)
        await once(out as unknown as EventEmitter, 'drain').catch(() => {});
      if (failure) throw failure;
    },
    async close() {
      // The error of a failed write comes on a later tick. The listener stays: writes still in flight may fail
      // after we are done, and an EPIPE then must not crash the process.
      await new Promise(setImmediate);
      if (failure) throw failure;
    },
  };
}
