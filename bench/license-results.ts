/**
 * The license registry section of bench/RESULTS.md (bench/license-registry.ts): its rows, in a table of their own,
 * and how they were measured.
 */
import type { LicenseRegistryResult, LicenseRegistrySize } from './license-registry.ts';
import { type Row, resultsTable } from './results.ts';

const count = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}M` : `${n / 1000}k`);
const list = (xs: number[], unit: string) => `${xs.join(', ')} ${unit}`;
const live = (z: LicenseRegistrySize) =>
  `${z.runs.map((x) => `${x.liveHeapStartMb}→${x.liveHeapEndMb}`).join(', ')} MB`;

function rows(r: LicenseRegistryResult): Row[] {
  const [small, large, smallY, largeY] = r.sizes as [
    LicenseRegistrySize,
    LicenseRegistrySize,
    LicenseRegistrySize,
    LicenseRegistrySize,
  ];
  const peaks = (z: LicenseRegistrySize) =>
    list(
      z.runs.map((x) => x.peakRssMb),
      'MB',
    );
  const young = smallY.nodeArgs.join(' ');
  return [
    {
      metric: `license registry read (streamRegistry), ${count(large.registryKeys)} keys (informational)`,
      value: large.keysPerS,
      unit: 'keys/s',
      target: 50_000,
      atLeast: true,
      detail: `working budget, issue 11 sets none; ${large.ms} ms, median of ${large.runs.length} processes (${list(
        large.runs.map((x) => x.keysPerS),
        'keys/s',
      )}); ${count(small.registryKeys)}: ${small.ms} ms, ${small.keysPerS} keys/s; concurrency ${r.concurrency}, pages of 1000`,
    },
    {
      metric: `license registry read, consumer peak RSS ${count(large.registryKeys)}`,
      value: large.peakRssMb,
      unit: 'MB',
      target: 250,
      detail: `median of ${large.runs.length} (${peaks(large)}); ${large.runs[0]!.startRssMb} MB before the read; V8 defaults: new space ${large.runs[0]!.newSpaceMb} MB at the end; with ${young}: ${largeY.peakRssMb} MB (${peaks(largeY)})`,
    },
    {
      metric: `license registry read, peak RSS ${count(large.registryKeys)} / ${count(small.registryKeys)} keys (flat)`,
      value: r.rssRatio,
      unit: '×',
      target: 1.15,
      detail: `${large.peakRssMb} MB against ${small.peakRssMb} MB (${count(small.registryKeys)}: ${peaks(small)}); live heap after a full GC before→after the read ${live(large)}; with ${young}: ${r.rssRatioSmallYoung}× (${largeY.peakRssMb} against ${smallY.peakRssMb} MB)`,
    },
    {
      metric: `emulator with ${count(large.registryKeys)} registry keys: start-up / RSS after start`,
      value: large.emulatorStartupMs,
      unit: 'ms',
      target: 3000,
      detail: `5000 clients in the first product; ${large.emulatorRssAfterStartMb} MB after start, peak ${large.emulatorPeakRssMb ?? '?'} MB over all runs; ${count(small.registryKeys)} keys: ${small.emulatorStartupMs} ms, ${small.emulatorRssAfterStartMb} MB, peak ${small.emulatorPeakRssMb ?? '?'} MB`,
    },
    {
      metric: `one search page of 1000 keys at the end / at the start, ${count(large.registryKeys)} keys`,
      value: Math.round((large.lastPageMs / large.firstPageMs) * 100) / 100,
      unit: '×',
      target: 1.5,
      detail: `O(limit) paging: ${large.lastPageMs} ms at startAt ${large.registryKeys - 1000}, ${large.firstPageMs} ms at 0 (round trip through the client, median of 15 per process); ${count(small.registryKeys)}: ${small.lastPageMs} / ${small.firstPageMs} ms`,
    },
  ];
}

export function licenseRegistryNotes(r: LicenseRegistryResult): string {
  const large = r.sizes[1]!;
  return `## License registry

${resultsTable(rows(r))}

- bench/license-registry.ts: one emulator per size (seed 7, 5000 clients, \`registryKeys\` 100k and 1M: keys without
  clients derived on demand, so start-up and memory hardly depend on the size), each in a child process; the
  consumer is a fresh process per run (${r.sizes[0]!.runs.length} per size and per flag set, sizes taking turns) that reads the first
  product's whole registry with \`streamRegistry\` (src/jobs/licenses/registry-stream.ts) at the config's default
  concurrency (${r.concurrency}), 1000 keys per page, over one session, looking at every key. \`consumeRegistry\` in the
  bench is the one function to change to bench the alerts job (\`runLicenseAlerts\`) instead of the bare stream.
- Memory: the stream holds nothing. The live heap after a full collection hardly moves over the read
  (the "live heap" figures: ${live(r.sizes[0]!)} at ${count(r.sizes[0]!.registryKeys)}, ${live(large)} at ${count(large.registryKeys)}), and at most
  ${r.concurrency} pages of 1000 keys are in flight. What grows from 100k to 1M is V8's garbage room: on this machine V8
  allows 64 MB semi-spaces, and the steady stream of short-lived pages (each parsed, validated and copied in the
  client, then dropped) grows the new space from ${r.sizes[0]!.runs[0]!.newSpaceMb} MB at the end of a 100k read to ${large.runs[0]!.newSpaceMb} MB at 1M; pages
  that wait in flight while earlier ones are consumed survive two scavenges and are promoted, so the old space
  also grows until a full collection frees them. With \`${r.sizes[2]!.nodeArgs.join(' ')}\` (V8's own default at a 2–4 GB
  memory limit; a 512 MB–1 GB Lambda gets less) the young generation stops at ${r.sizes[2]!.runs[0]!.newSpaceMb} MB and the ratio is
  ${r.rssRatioSmallYoung}×, the rest being that promoted garbage. Neither target is met as measured: ${large.peakRssMb} MB (≤ 250) and ${r.rssRatio}×
  (≤ 1.15); ${large.runs[0]!.startRssMb} MB of the peak is the process before the read (type-stripped .ts; a bundle starts lower).
  The allocation per key is in the client's response handling (src/client), not in the stream.
`;
}
