/** What a command may touch of the process: injected so commands run in tests without spawning. */
export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  env: Record<string, string | undefined>;
}

/** Exit codes shared by every command. */
export const EXIT = { ok: 0, usage: 2, auth: 3, service: 4, network: 5, failure: 1 } as const;

export class UsageError extends Error {
  override name = 'UsageError';
}
