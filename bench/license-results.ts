/**
 * The license registry section of bench/RESULTS.md (bench/license-registry.ts): its rows, in a table of their own,
 * and how they were measured.
 */
import type { LicenseAlertsSize, LicenseRegistryResult, LicenseRegistrySize } from './license-registry.ts';
import { type Row, resultsTable } from './results.ts';

const count = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}M` : `${n / 1000}k`);
/** bench/measure.ts `median`: of an even count, the upper of the two middle values. */
const medianOf = (n: number) => (n % 2 === 0 ? `upper median of ${n}` : `median of ${n}`);
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
  const [aSmall, aLarge, aSmallY, aLargeY] = r.alerts as [
    LicenseAlertsSize,
    LicenseAlertsSize,
    LicenseAlertsSize,
    LicenseAlertsSize,
  ];
  const alertPeaks = (z: LicenseAlertsSize) =>
    list(
      z.runs.map((x) => x.peakRssMb),
      'MB',
    );
  const alertLive = (z: LicenseAlertsSize) =>
    `${z.runs.map((x) => `${x.liveHeapStartMb}→${x.liveHeapEndMb}`).join(', ')} MB`;
  return [
    {
      metric: `license alerts (runLicenseAlerts), ${count(aLarge.registryKeys)} keys: wall time`,
      value: aLarge.ms,
      unit: 'ms',
      target: 900_000,
      detail: `the Lambda's 15-minute timeout; ${aLarge.alertsSent} alerts in ${aLarge.emails} emails, each alert claimed and completed in dynalite, emails through the SMTP sink (both in a process of their own); ${medianOf(aLarge.runs.length)} (${list(
        aLarge.runs.map((x) => x.ms),
        'ms',
      )}); ${count(aSmall.registryKeys)}: ${aSmall.ms} ms, ${aSmall.alertsSent} alerts; with ${young}: ${aLargeY.ms} / ${aSmallY.ms} ms`,
    },
    {
      metric: `license alerts, peak RSS ${count(aLarge.registryKeys)} keys`,
      value: aLarge.peakRssMb,
      unit: 'MB',
      target: 250,
      detail: `${medianOf(aLarge.runs.length)} (${alertPeaks(aLarge)}); ${aLarge.runs[0]!.startRssMb} MB before the run; new space ${aLarge.runs[0]!.newSpaceMb} MB at the end; with ${young}: ${aLargeY.peakRssMb} MB (${alertPeaks(aLargeY)})`,
    },
    {
      metric: `license alerts, peak RSS ${count(aLarge.registryKeys)} / ${count(aSmall.registryKeys)} keys (flat)`,
      value: r.alertsRssRatio,
      unit: '×',
      target: 1.15,
      detail: `${aLarge.peakRssMb} MB against ${aSmall.peakRssMb} MB (${count(aSmall.registryKeys)}: ${alertPeaks(aSmall)}); live heap after a full GC before→after the run ${alertLive(aLarge)} at ${count(aLarge.registryKeys)}, ${alertLive(aSmall)} at ${count(aSmall.registryKeys)}; with ${young}: ${r.alertsRssRatioSmallYoung}× (${aLargeY.peakRssMb} against ${aSmallY.peakRssMb} MB)`,
    },
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

const met = (ok: boolean) => (ok ? 'met' : 'NOT met');

export function licenseRegistryNotes(r: LicenseRegistryResult): string {
  const large = r.sizes[1]!;
  const [aSmall, aLarge, , aLargeY] = r.alerts as [
    LicenseAlertsSize,
    LicenseAlertsSize,
    LicenseAlertsSize,
    LicenseAlertsSize,
  ];
  const young = r.sizes[2]!.nodeArgs.join(' ');
  return `## License registry

${resultsTable(rows(r))}

- bench/license-registry.ts: one emulator per size (seed 7, 5000 clients, \`registryKeys\` 100k and 1M: keys without
  clients derived on demand, so start-up and memory hardly depend on the size), each in a child process.
- The alerts rows run the real job, \`runLicenseAlerts\` (src/jobs/licenses/run-license-alerts.ts), in a fresh
  process per run (${aLarge.runs.length} per size and per flag set, sizes taking turns), as the hourly Lambda does: the emulator's
  first product, a \`licenses\` section with the owner and one route (keys ending in an even digit), the default
  stages, "now" pinned to noon of the emulator's today. The ledger is a \`DynamoDbLedger\` on dynalite and the
  mailer \`smtpMailer\` on the SMTP sink; both peers run in another child process, fresh per run (an empty ledger,
  so every alert is new), so their memory is not counted. ${aLarge.alertsSent} alerts at ${count(aLarge.registryKeys)} keys
  (${aSmall.alertsSent} at ${count(aSmall.registryKeys)}), each claimed and completed in the ledger, in ${aLarge.emails} emails. Targets (issue 11): peak RSS
  ≤ 250 MB at 1M, ${met(aLarge.peakRssMb <= 250)} (${aLarge.peakRssMb} MB; ${aLargeY.peakRssMb} MB with \`${young}\`); 1M / 100k ≤ 1.15×, ${met(r.alertsRssRatio <= 1.15)}
  (${r.alertsRssRatio}×; ${r.alertsRssRatioSmallYoung}× with \`${young}\`). Unlike the bare read, the job keeps every alert until the registry is read
  (one email per recipient, most urgent first), then claims them 16 at a time and renders its CSV: what it holds
  during the run grows with the alerts, and so with the registry (after the run the live heap is back where it
  started: nothing is retained).
- The bare-read rows isolate the stream: the same processes read the whole registry with \`streamRegistry\`
  (src/jobs/licenses/registry-stream.ts) at the config's default concurrency (${r.concurrency}), 1000 keys per page, over one
  session, looking at every key (${r.sizes[0]!.runs.length} processes per size and per flag set).
- Memory of the bare read: the stream holds nothing. The live heap after a full collection hardly moves over the read
  (the "live heap" figures: ${live(r.sizes[0]!)} at ${count(r.sizes[0]!.registryKeys)}, ${live(large)} at ${count(large.registryKeys)}), and at most
  ${r.concurrency} pages of 1000 keys are in flight. What grows from 100k to 1M is V8's garbage room: on this machine V8
  allows 64 MB semi-spaces, and the steady stream of short-lived pages (each parsed, validated and copied in the
  client, then dropped) grows the new space from ${r.sizes[0]!.runs[0]!.newSpaceMb} MB at the end of a 100k read to ${large.runs[0]!.newSpaceMb} MB at 1M; pages
  that wait in flight while earlier ones are consumed survive two scavenges and are promoted, so the old space
  also grows until a full collection frees them. With \`${young}\` (V8's own default at a 2–4 GB
  memory limit; a 512 MB–1 GB Lambda gets less) the young generation stops at ${r.sizes[2]!.runs[0]!.newSpaceMb} MB and the ratio is
  ${r.rssRatioSmallYoung}×. Bare read: ${large.peakRssMb} MB (≤ 250) ${met(large.peakRssMb <= 250)}, ${r.rssRatio}× (≤ 1.15) ${met(r.rssRatio <= 1.15)};
  ${large.runs[0]!.startRssMb} MB of the peak is the process before the read (type-stripped .ts; a bundle starts lower).
  The allocation per key is in the client's response handling (src/client), not in the stream.
`;
}
