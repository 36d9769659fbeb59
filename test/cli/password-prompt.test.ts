/**
 * The no-echo password prompt (src/cli/terminal.ts) on a fake terminal: line editing (arrows, Backspace, Ctrl-U)
 * edits the password and never puts escape sequences into it; nothing but the label is written; Ctrl-C cancels.
 */
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/io.ts';
import { PromptCancelledError, promptPassword } from '../../src/cli/terminal.ts';
import { fakeTty, KEY } from '../helpers/fake-tty.ts';

async function prompt(keys: string[]) {
  const tty = fakeTty(keys);
  let stderr = '';
  const result = await promptPassword(
    tty,
    { write: (t: string) => (stderr += t) },
    'Password for ada',
    'PULSE_PASSWORD',
  )
    .then((value) => ({ value }))
    .catch((error: Error) => ({ error }));
  return { ...result, stderr, raw: tty.raw, paused: tty.isPaused() };
}

describe('promptPassword', () => {
  it('reads what is typed, echoing nothing, and leaves raw mode', async () => {
    const r = await prompt(['s3cr', 'et-pässwörd€', KEY.enter]);
    expect(r).toEqual({ value: 's3cret-pässwörd€', stderr: 'Password for ada: \n', raw: false, paused: true });
  });

  it('arrow keys move the cursor: they are not typed into the password', async () => {
    const r = await prompt(['abcd', KEY.left, KEY.left, 'X', KEY.right, KEY.right, 'e', KEY.up, KEY.enter]);
    expect(r).toMatchObject({ value: 'abXcde', stderr: 'Password for ada: \n' });
    expect(await prompt(['bc', KEY.home, 'a', KEY.enter])).toMatchObject({ value: 'abc' });
  });

  it('Backspace deletes the character before the cursor', async () => {
    expect(await prompt(['abcx', KEY.backspace, 'd', KEY.enter])).toMatchObject({ value: 'abcd' });
    expect(await prompt(['abc', KEY.left, KEY.backspace, KEY.enter])).toMatchObject({ value: 'ac' });
  });

  it('Ctrl-U clears the line typed so far', async () => {
    expect(await prompt(['wrong', KEY.ctrlU, 'right', KEY.enter])).toMatchObject({ value: 'right' });
  });

  it('Ctrl-C cancels with PromptCancelledError (a usage error: exit 2), leaving raw mode', async () => {
    const r = await prompt(['abc', KEY.ctrlC]);
    expect('error' in r && r.error).toBeInstanceOf(PromptCancelledError);
    expect('error' in r && r.error).toBeInstanceOf(UsageError);
    expect(r).toMatchObject({
      error: { message: 'password prompt cancelled' },
      raw: false,
      stderr: 'Password for ada: \n',
    });
  });

  it('refuses an empty password: Enter or Ctrl-D on an empty line', async () => {
    for (const keys of [[KEY.enter], [KEY.ctrlD], ['x', KEY.backspace, KEY.enter]]) {
      const r = await prompt(keys);
      expect(r).toMatchObject({ error: { message: 'empty password' }, raw: false });
    }
  });

  it('refuses to ask when stdin is not a terminal, naming the variable to set', async () => {
    const piped = fakeTty(['secret\n'], { isTTY: false });
    await expect(promptPassword(piped, { write: () => true }, 'Password', 'PULSE_PASSWORD')).rejects.toThrow(
      'no password: set PULSE_PASSWORD (stdin is not a terminal to ask on)',
    );
  });
});
