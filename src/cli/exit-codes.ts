/**
 * The exit codes every `pulse` command ends with: the one table. failure.ts decides which failure is which code; the
 * commands' `--help` is written from EXIT_MEANINGS, and the README's table is checked against it
 * (test/cli/exit-codes.test.ts), so the three cannot disagree.
 */
export const EXIT = { ok: 0, failure: 1, usage: 2, auth: 3, service: 4, network: 5 } as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export const EXIT_MEANINGS: Record<ExitCode, string> = {
  0: 'the command did what it should',
  1: 'the job held or failed something (listed on stderr and in --json "errors"), or Pulse failed',
  2: 'usage or configuration error: nothing was started',
  3: 'credentials or origin refused (the Reporting Service, or AWS)',
  4: 'a service answered with an error (the Reporting Service, S3, DynamoDB)',
  5: 'network: a service could not be reached or did not answer in time',
};

/** The `Exit codes:` block of a command's help; `specific` says what a code means for that command. */
export function exitCodesHelp(specific: Partial<Record<ExitCode, string>> = {}, footer?: string): string {
  const lines = (Object.keys(EXIT_MEANINGS).map(Number) as ExitCode[]).map(
    (code) => `  ${code}  ${specific[code] ?? EXIT_MEANINGS[code]}`,
  );
  return ['Exit codes:', ...lines, ...(footer ? [`  ${footer}`] : [])].join('\n');
}
