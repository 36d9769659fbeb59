/**
 * `pulse usage-alerts recompute --evidence <key or file>`: a run's alerts recomputed from the evidence it kept
 * (src/usage-alerts/evidence.ts, recompute.ts), to check what an alert said. A file is read as it is (no config, no
 * peers); a key (or its s3:// URI, as the alerts name it) is read from the archive the config names, or with
 * `--local` from the local S3 of the work directory. Exit 0 when the recomputed changes equal the recorded ones.
 */
import { existsSync, readFileSync } from 'node:fs';
import { changeLine } from '../usage-alerts/change-line.ts';
import { EvidenceFormatError, parseEvidence, type UsageAlertEvidence } from '../usage-alerts/evidence.ts';
import { type Recomputed, recomputeEvidence } from '../usage-alerts/recompute.ts';
import { type CliIo, EXIT, parseFlags, UsageError } from './io.ts';
import { JOB_EXIT_CODES_HELP, loadJob, runJob } from './job-command.ts';

export const USAGE_ALERTS_RECOMPUTE_HELP = `Usage: pulse usage-alerts recompute --evidence KEY|FILE [options]

Recomputes a run's usage alerts from the evidence it kept in the archive (the rules, the raw report answers and
each series' state before the run; every alert names its evidence) with the judging code of this Pulse, and
prints whether the recomputed changes equal the recorded ones, and any difference.

Options:
  --evidence KEY|FILE  the evidence object: a file, or its key (or s3:// URI) in the archive
  --config FILE        pulse.config.json naming the archive (default $PULSE_CONFIG or ./pulse.config.json)
  --local              read the key from the local S3 of --work-dir (the bundled example config unless --config)
  --work-dir DIR       state of local runs (default .pulse/)
  --json               one JSON object: same, differences, the recorded and the recomputed changes
  --verbose            the stack trace of a failure
  -h, --help           show this help

${JOB_EXIT_CODES_HELP}
  (0: the recomputed changes equal the recorded ones; 1: they differ, or the evidence is not there)
`;

const OPTIONS = {
  evidence: { type: 'string' },
  config: { type: 'string' },
  local: { type: 'boolean' },
  'work-dir': { type: 'string' },
  json: { type: 'boolean' },
  verbose: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function usageAlertsRecomputeCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags('usage-alerts recompute', args, OPTIONS);
  if (values.help) {
    io.stdout.write(USAGE_ALERTS_RECOMPUTE_HELP);
    return EXIT.ok;
  }
  const where = values.evidence;
  if (where === undefined || where === '') throw new UsageError('recompute: --evidence KEY|FILE is required');
  const json = values.json === true;
  if (!where.startsWith('s3://') && existsSync(where)) {
    let evidence: UsageAlertEvidence;
    try {
      evidence = parseEvidence(readFileSync(where, 'utf8'), where);
    } catch (e) {
      if (e instanceof EvidenceFormatError) throw new UsageError(e.message);
      throw e;
    }
    return print(where, recomputeEvidence(evidence), json, io);
  }
  const setup = loadJob(values, io, { signIn: false });
  return runJob(
    'usage-alerts recompute',
    setup,
    io,
    async ({ config, ports }) => {
      const key = keyOf(where, config.archive?.bucket);
      if (!ports.archive) throw new UsageError('recompute: the config names no archive to read the evidence from');
      const bytes = await ports.archive.get(key);
      if (!bytes) {
        io.stderr.write(`usage-alerts recompute: no evidence at ${key} (nor a file of that name)\n`);
        return EXIT.failure;
      }
      return print(key, recomputeEvidence(parseEvidence(Buffer.from(bytes).toString('utf8'), key)), json, io);
    },
    { signIn: false },
  );
}

/** The key of `s3://<bucket>/<key>` (the archive's bucket only; locally the local S3's) or of a plain key. */
function keyOf(where: string, bucket: string | undefined): string {
  if (!where.startsWith('s3://')) return where;
  const [, , name, ...rest] = where.split('/');
  if (name !== bucket) throw new UsageError(`recompute: ${where} is not in the archive bucket ${bucket}`);
  return rest.join('/');
}

function print(source: string, r: Recomputed, json: boolean, io: CliIo): number {
  if (json) io.stdout.write(`${JSON.stringify({ evidence: source, ...r })}\n`);
  else {
    io.stdout.write(
      `usage-alerts recompute: ${r.same ? 'same' : 'DIFFERENT'} (${r.recorded.length} changes recorded, ` +
        `${r.recomputed.length} recomputed) from ${source}\n`,
    );
    for (const c of r.recomputed) io.stdout.write(`  ${changeLine(c)}\n`);
    for (const d of r.differences) io.stderr.write(`  differs: ${d}\n`);
  }
  return r.same ? EXIT.ok : EXIT.failure;
}
