/** `pulse archive`: the verified, write-once export archive (see docs/archive.md "Export archive"). */

import type { ArchivePlan } from '../archive/plan.ts';
import { terminalProgress } from '../archive/progress.ts';
import { runArchive } from '../archive/run-archive.ts';
import { verifyArchiveChain } from '../archive/verify-chain.ts';
import { ARCHIVE_KINDS, type ArchiveKind } from '../config/schema.ts';
import { type CliIo, EXIT, parseFlags, UsageError } from './io.ts';
import {
  JOB_EXIT_CODES_HELP,
  JOB_OPTIONS,
  JOB_OPTIONS_HELP,
  type JobRuntime,
  loadJob,
  report,
  requireKnown,
  runJob,
} from './job-command.ts';

export const ARCHIVE_HELP = `Usage: pulse archive [options]

Copies every export file the service offers (custom events, exceptions, raw events) and the day's client data into
the archive bucket, verified by SHA-256 and never overwritten; fills gaps; writes a hash-chained manifest and a
coverage report per run.

Options:
${JOB_OPTIONS_HELP}
  --product ID       only this product (repeatable; must be in the config)
  --kind KIND        only this kind (repeatable): ${ARCHIVE_KINDS.join(', ')}
  --verify           copy nothing: check the manifests' hash chain (every manifest links to the one before it
                     with that one's SHA-256) and list each break

With --dry-run the plan is printed (files per product and kind, what would be copied) and nothing is copied.

${JOB_EXIT_CODES_HELP}
  (0: everything archived or already there; 1: the run could not sign in or list, a file failed or a name was
  rejected — the manifest says which; with --verify, 1: a manifest was deleted, altered or inserted)
`;

export async function archiveCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags('archive', args, {
    ...JOB_OPTIONS,
    product: { type: 'string', multiple: true },
    kind: { type: 'string', multiple: true },
    verify: { type: 'boolean' },
  });
  if (values.help) {
    io.stdout.write(ARCHIVE_HELP);
    return EXIT.ok;
  }
  const kinds = values.kind as string[] | undefined;
  for (const k of kinds ?? []) {
    if (!(ARCHIVE_KINDS as readonly string[]).includes(k))
      throw new UsageError(`--kind ${JSON.stringify(k)}: one of ${ARCHIVE_KINDS.join(', ')}`);
  }
  const productIds = values.product as string[] | undefined;
  const json = values.json as boolean | undefined;
  const dryRun = values['dry-run'] === true;
  const setup = loadJob(values, io);
  // A local run gets an archive section anyway (the local S3); elsewhere there is nowhere to archive to.
  if (!setup.config.archive && !values.local) throw new UsageError('archive: the config has no "archive" section');
  const productsInConfig = setup.config.products.map((p) => p.id);
  requireKnown('--product', productIds, productsInConfig, "the config's products");
  const job = async ({ config, ports }: JobRuntime) => {
    if (!config.archive || !ports.archive) throw new UsageError('archive: the config has no "archive" section');
    if (values.verify) return report(await verifyArchiveChain(ports.archive, config.archive.prefix), json, io);
    const result = await runArchive(
      config,
      {
        client: ports.client,
        archive: ports.archive,
        clock: ports.clock,
        logger: ports.logger,
        ledger: ports.ledger,
        ...(ports.channels ? { channels: ports.channels } : {}),
      },
      {
        productIds,
        kinds: kinds as ArchiveKind[] | undefined,
        dryRun,
        // Progress only on a terminal, and never with a dry run (nothing is copied).
        progress: dryRun ? undefined : terminalProgress(io.stderr),
        onPlan: dryRun && !json ? (plan) => io.stdout.write(planText(plan)) : undefined,
      },
    );
    return report(result, json, io);
  };
  // --verify reads the archive only: no service, so no sign-in.
  // Signed in up front (not for --verify): wrong credentials end in one line and exit 3 before a run starts. A run
  // that loses its session later (or a scheduled run in AWS that cannot sign in) writes a manifest saying so.
  return runJob('archive', setup, io, job, { signIn: values.verify !== true });
}

/** One line per product and kind: what the copy step would do. */
export function planText(plan: ArchivePlan): string {
  const lines = plan.kinds.map((k) => {
    const head = `${k.productId} ${k.kind}`.padEnd(26);
    if (k.status !== 'listed') return `${head} ${k.status}${k.reason ? `: ${k.reason}` : ''}`;
    const missing = k.files.filter((f) => f.state === 'missing');
    const backfill = missing.filter((f) => f.backfill).length;
    const parts = [
      `${k.files.length} ${k.files.length === 1 ? 'file' : 'files'}`,
      `${missing.length} to copy${backfill > 0 ? ` (${backfill} backfill)` : ''}`,
      `${k.files.length - missing.length} to re-verify`,
    ];
    if (k.rejected.length > 0) parts.push(`${k.rejected.length} rejected`);
    if (k.openSkipped > 0) parts.push(`${k.openSkipped} open (not final yet)`);
    return `${head} ${parts.join(', ')}`;
  });
  return `plan for ${plan.runDate}:\n${lines.map((l) => `  ${l}\n`).join('')}`;
}
