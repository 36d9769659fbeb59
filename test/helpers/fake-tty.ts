/** A fake terminal for prompts: a stream that says it is a TTY, records raw mode, and has `keys` typed in order. */
import { PassThrough } from 'node:stream';
import type { PromptInput } from '../../src/cli/terminal.ts';

export type FakeTty = PromptInput & PassThrough & { isTTY: boolean; raw: boolean };

export function fakeTty(keys: string[], { isTTY = true } = {}): FakeTty {
  const t = Object.assign(new PassThrough(), {
    isTTY,
    raw: false,
    setRawMode(raw: boolean) {
      t.raw = raw;
      return t;
    },
  });
  // Buffered until the prompt reads: one chunk per key, as a terminal in raw mode sends them.
  for (const k of keys) t.write(Buffer.from(k));
  return t;
}

/** What a terminal sends for these keys. */
export const KEY = {
  enter: '\r',
  backspace: '\u007f',
  ctrlC: '\u0003',
  ctrlD: '\u0004',
  ctrlU: '\u0015',
  left: '\u001b[D',
  right: '\u001b[C',
  up: '\u001b[A',
  home: '\u001b[H',
} as const;
