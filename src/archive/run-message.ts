/**
 * A finished archive run as a channel message (src/core/channels/): `archive.completed` when the run looked at
 * everything and every file is archived, `archive.failed` otherwise. Built from the run's manifest alone, so a run
 * announced late (announce-run.ts) says exactly what its manifest says; for webhooks the counts and keys as data.
 */
import type { ChannelFact, ChannelMessage, ChannelSection } from '../core/channels/channel-message.ts';
import type { Manifest, ManifestFile } from './manifest.ts';
import { formatBytes } from './progress.ts';

/** Problems a message lists before "and N more in the manifest"; a webhook event carries up to the larger number. */
export const LISTED_PROBLEMS = 5;
export const EVENT_PROBLEMS = 50;

export interface AnnouncedRun {
  manifest: Manifest;
  manifestKey: string;
  coverageKey?: string | undefined;
}

/** The config's product names, which the sections show beside the ids. */
export type ProductNames = { products: readonly { id: string; name?: string | undefined }[] };

export const runSucceeded = (m: Manifest): boolean => m.complete && m.errors.length === 0;

export function archiveRunMessage(config: ProductNames, run: AnnouncedRun): ChannelMessage {
  const { manifest: m } = run;
  const ok = runSucceeded(m);
  const count = (name: string) => m.counts[name] ?? 0;
  const problems = [...m.problems, ...m.errors.filter((e) => !m.problems.includes(e))];
  const more = problems.length - LISTED_PROBLEMS;
  return {
    event: ok ? 'archive.completed' : 'archive.failed',
    title: `Export archive · run of ${utcMinute(m.startedAt)}`,
    summary: ok
      ? `Archive run complete: ${count('archived')} new, ${count('skippedSame')} already archived, ${formatBytes(count('bytes'))} written`
      : `Archive run failed: ${count('failed')} failed, ${count('rejected')} rejected of ${count('listed')} files` +
        (m.complete ? '' : '; it could not look at everything'),
    lines: [...problems.slice(0, LISTED_PROBLEMS), ...(more > 0 ? [`and ${more} more in the manifest`] : [])],
    facts: factsOf(count),
    sections: productSections(config, m),
    occurredAt: m.finishedAt,
    data: {
      runId: m.runId,
      startedAt: m.startedAt,
      finishedAt: m.finishedAt,
      complete: m.complete,
      manifestKey: run.manifestKey,
      coverageKey: run.coverageKey ?? null,
      counts: m.counts,
      problems: problems.slice(0, EVENT_PROBLEMS),
      problemsOmitted: Math.max(0, problems.length - EVENT_PROBLEMS),
      products: productCounts(m.files).map(([productId, c]) => ({ productId, ...c })),
    },
  };
}

/** Archived and failed always; the rest when they happened. */
function factsOf(count: (name: string) => number): ChannelFact[] {
  const shown: [string, string, boolean][] = [
    ['Files listed', 'listed', true],
    ['Archived', 'archived', true],
    ['Backfilled', 'backfilled', false],
    ['Already archived', 'skippedSame', false],
    ['Republished', 'republished', false],
    ['Repaired', 'repaired', false],
    ['Failed', 'failed', true],
    ['Rejected names', 'rejected', false],
  ];
  const facts = shown
    .filter(([, name, always]) => always || count(name) > 0)
    .map(([label, name]) => ({ label, value: count(name).toLocaleString('en-US') }));
  return [...facts, { label: 'Written', value: formatBytes(count('bytes')) }];
}

type ProductCounts = { archived: number; skippedSame: number; failed: number; rejected: number };

function productCounts(files: ManifestFile[]): [string, ProductCounts][] {
  const byProduct = new Map<string, ProductCounts>();
  for (const f of files) {
    const c = byProduct.get(f.productId) ?? { archived: 0, skippedSame: 0, failed: 0, rejected: 0 };
    if (f.outcome === 'archived' || f.outcome === 'republished' || f.outcome === 'repaired') c.archived++;
    else c[f.outcome]++;
    byProduct.set(f.productId, c);
  }
  return [...byProduct];
}

function productSections(config: ProductNames, m: Manifest): ChannelSection[] {
  const counts = new Map(productCounts(m.files));
  const ids = [...new Set([...m.kinds.map((k) => k.productId), ...counts.keys()])];
  return ids.map((id) => {
    const c = counts.get(id) ?? { archived: 0, skippedSame: 0, failed: 0, rejected: 0 };
    const unlisted = m.kinds.filter((k) => k.productId === id && (k.status === 'failed' || k.status === 'notListed'));
    const name = config.products.find((p) => p.id === id)?.name;
    return {
      title: name ? `${name} (${id})` : id,
      ...(unlisted.length > 0 ? { text: `not listed: ${unlisted.map((k) => k.kind).join(', ')}` } : {}),
      facts: [
        { label: 'Archived', value: c.archived.toLocaleString('en-US') },
        { label: 'Already archived', value: c.skippedSame.toLocaleString('en-US') },
        { label: 'Failed', value: (c.failed + c.rejected).toLocaleString('en-US') },
      ],
    };
  });
}

/** "2026-11-27 03:00 UTC": the run's start, as every reader's calendar shows the same minute. */
const utcMinute = (iso: string): string => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
