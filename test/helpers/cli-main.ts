/** The `pulse` CLI in-process through `main`, with its output captured, and the `--json` contract. */
import { expect } from 'vitest';
import type { CliIo } from '../../src/cli/io.ts';
import { main } from '../../src/cli/main.ts';

export async function pulseMain(argv: string[], env: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    env,
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

/** The --json contract: exactly one line, one object. */
export function jsonResult(stdout: string) {
  const lines = stdout.split('\n').filter((l) => l !== '');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!);
}
