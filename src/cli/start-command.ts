/**
 * `pulse start` (what `npm start` runs): the weekly cycle on this machine — every job against in-process local peers
 * (emulator, DynamoDB, S3, SMTP sink), state kept in the work directory so a second run sees the first.
 */
import { parseArgs } from 'node:util';
import { DEFAULT_WORK_DIR } from '../adapters/local/local-peers.ts';
import { digestCommand } from './digest-command.ts';
import type { CliIo } from './io.ts';

export const START_HELP = `Usage: pulse start [--work-dir DIR] [--json]

Runs the weekly cycle locally: the digest for the week that just ended, sent to the local SMTP sink
(<work-dir>/outbox/*.eml and *.html) and archived in the local S3 (<work-dir>/s3). Default work dir: ${DEFAULT_WORK_DIR}/.
A second run sees the first: already-sent digests are skipped.
`;

export async function startCommand(args: string[], io: CliIo): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout.write(START_HELP);
    return 0;
  }
  const code = await digestCommand(['--local', ...args], io);
  if (!args.includes('--json')) {
    // The digest command validated the arguments; this only needs --work-dir in either spelling (`--work-dir=D`).
    const { values } = parseArgs({ args, strict: false, options: { 'work-dir': { type: 'string' } } });
    const dir = typeof values['work-dir'] === 'string' ? values['work-dir'] : DEFAULT_WORK_DIR;
    io.stdout.write(`Emails: ${dir}/outbox/  ·  archive: ${dir}/s3/  ·  run again to see exactly-once delivery\n`);
  }
  return code;
}
