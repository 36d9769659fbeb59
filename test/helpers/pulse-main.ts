/** `pulse …` through `main` in this process, with captured output and the example config's credentials variables. */
import type { CliIo } from '../../src/cli/io.ts';
import { main } from '../../src/cli/main.ts';

export async function pulseMain(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    env: { PULSE_USER: 'u', PULSE_PASSWORD: 'p' },
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}
