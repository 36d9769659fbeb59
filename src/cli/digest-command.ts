/** `pulse digest`: the weekly executive digest (see docs/digest.md "Weekly digest"). */
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { PreviewWriter } from '../adapters/local/preview-writer.ts';
import { ReportFolder } from '../adapters/local/report-folder.ts';
import type { JobResult } from '../core/job-result.ts';
import { previewDigest } from '../digest/preview.ts';
import { runDigest } from '../digest/run-digest.ts';
import { type CliIo, EXIT, parseFlags, UsageError } from './io.ts';
import {
  JOB_EXIT_CODES_HELP,
  JOB_OPTIONS,
  JOB_OPTIONS_HELP,
  loadJob,
  report,
  requireKnown,
  runJob,
} from './job-command.ts';
import { unknownDeliveriesOption } from './unknown-deliveries-option.ts';
import { weekOption } from './week-option.ts';

export const DIGEST_HELP = `Usage: pulse digest [options]

Sends each configured digest for the ISO week that just ended, at most once per recipient.

Options:
${JOB_OPTIONS_HELP}
  --digest ID        only this digest (repeatable)
  --week 2026-W46    another ISO week than the one that just ended
  --force            send even when a check fails, with a visible "data incomplete" banner
  --preview          render without sending or touching the ledger: writes the .eml, its .html and the full
                     report page (<name>.html beside them), prints their paths
  --out DIR          where --preview writes (default <work-dir>/preview)
  --send-to ADDRESS  with --preview: also send one copy to this address only
  --resend-unknown   send again the deliveries whose outcome is unknown (check the mail server's log first)
  --confirm-unknown  record the deliveries whose outcome is unknown as delivered, without sending

A delivery is unknown when a send may or may not have gone out (the run stopped between sending and recording, or
the mail server stopped answering mid-message). Pulse never sends those again on its own: it reports them (exit 1)
and tells the digest's owner once.

${JOB_EXIT_CODES_HELP}
  (0: sent or nothing due; 1: a digest held, a send failed, sent but unconfirmed, or a delivery unknown)
`;

export async function digestCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags('digest', args, {
    ...JOB_OPTIONS,
    digest: { type: 'string', multiple: true },
    week: { type: 'string' },
    force: { type: 'boolean' },
    preview: { type: 'boolean' },
    out: { type: 'string' },
    'send-to': { type: 'string' },
    'resend-unknown': { type: 'boolean' },
    'confirm-unknown': { type: 'boolean' },
  });
  if (values.help) {
    io.stdout.write(DIGEST_HELP);
    return EXIT.ok;
  }
  const week = weekOption(values.week as string | undefined);
  if (values['send-to'] && !values.preview) throw new UsageError('--send-to goes with --preview');
  const unknownDeliveries = unknownDeliveriesOption(
    values,
    values.preview || values['dry-run'] ? '--preview or --dry-run' : undefined,
  );
  const digestIds = values.digest as string[] | undefined;
  const setup = loadJob(values, io);
  const digestsInConfig = setup.config.digests.map((d) => d.id);
  requireKnown('--digest', digestIds, digestsInConfig, "the config's digests");
  return runJob('digest', setup, io, async (runtime) => {
    if (values.preview) {
      const out = (values.out as string | undefined) ?? join(runtime.workDir, 'preview');
      const writer = new PreviewWriter(
        out,
        (m) => `${m.headers?.['X-Pulse-Digest'] ?? 'digest'}-${m.headers?.['X-Pulse-Week'] ?? ''}`,
      );
      const result = await previewDigest(runtime.config, runtime.ports, {
        writer,
        pages: new ReportFolder(out),
        ...(digestIds ? { digestIds } : {}),
        ...(week ? { week } : {}),
        ...(values['send-to'] ? { sendTo: values['send-to'] as string } : {}),
      });
      return report(
        withShownPaths(result, () => true),
        values.json as boolean | undefined,
        io,
      );
    }
    const result = await runDigest(runtime.config, runtime.ports, {
      ...(digestIds ? { digestIds } : {}),
      ...(week ? { week } : {}),
      force: values.force === true,
      dryRun: values['dry-run'] === true,
      ...(unknownDeliveries ? { unknownDeliveries } : {}),
    });
    // Its outputs are the report page's path (absolute) and archive keys (never absolute).
    return report(withShownPaths(result, isAbsolute), values.json as boolean | undefined, io);
  });
}

/**
 * The files a run wrote (the outputs `isFile` picks), all shown one way: relative to the working directory when
 * inside it, else absolute. The writers give some absolute (the report page) and some as they were given (`--out`).
 */
function withShownPaths<T extends JobResult>(result: T, isFile: (output: string) => boolean): T {
  const cwd = process.cwd();
  const shown = (path: string) => {
    const rel = relative(cwd, resolve(path));
    return rel !== '' && rel.split(sep)[0] !== '..' && !isAbsolute(rel) ? rel : resolve(path);
  };
  return { ...result, outputs: result.outputs.map((o) => (isFile(o) ? shown(o) : o)) };
}
