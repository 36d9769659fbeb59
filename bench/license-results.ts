/**
 * The license registry section of bench/RESULTS.md (bench/license-registry.ts): its rows, in a table of their own,
 * and how they were measured. The targets are read on the `lambda` variant (the consumer bundled and started as the
 * license alerts Lambda is); the `source` variant (type-stripped .ts, this machine's V8 defaults) is shown beside.
 */
import type { LicenseAlertsSize, LicenseRegistryResult, LicenseRegistrySize } from './license-registry.ts';
import { type Row, resultsTable } from './results.ts';

const count = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}M` : `${n / 1000}k`);
/** bench/measure.ts `median`: of an even count, the upper of the two middle values. */
const medianOf = (n: number) => (n % 2 === 0 ? `upper median of ${n}` : `median of ${n}`);
const list = (xs: number[], unit: string) => `${xs.join(', ')} ${unit}`;
type Runs = { runs: { peakRssMb: number; liveHeapStartMb: number; liveHeapEndMb: number }[] };
const peaks = (z: Runs) =>
  list(
    z.runs.map((x) => x.peakRssMb),
    'MB',
  );
const live = (z: Runs) => `${z.runs.map((x) => `${x.liveHeapStartMb}→${x.liveHeapEndMb}`).join(', ')} MB`;

function parts(r: LicenseRegistryResult) {
  const [small, large, srcSmall, srcLarge] = r.sizes as [
    LicenseRegistrySize,
    LicenseRegistrySize,
    LicenseRegistrySize,
    LicenseRegistrySize,
  ];
  const [aSmall, aLarge, aSrcSmall, aSrcLarge] = r.alerts as [
    LicenseAlertsSize,
    LicenseAlertsSize,
    LicenseAlertsSize,
    LicenseAlertsSize,
  ];
  return { small, large, srcSmall, srcLarge, aSmall, aLarge, aSrcSmall, aSrcLarge, flags: large.nodeArgs.join(' ') };
}

function rows(r: LicenseRegistryResult): Row[] {
  const { small, large, srcSmall, srcLarge, aSmall, aLarge, aSrcSmall, aSrcLarge } = parts(r);
  return [
    {
      metric: `license alerts (runLicenseAlerts), ${count(aLarge.registryKeys)} keys: wall time`,
      value: aLarge.ms,
      unit: 'ms',
      target: 900_000,
      detail: `the Lambda's 15-minute timeout; ${aLarge.alertsSent} alerts in ${aLarge.emails} emails, each alert claimed and completed in dynalite, emails through the SMTP sink (both in a process of their own); ${medianOf(aLarge.runs.length)} (${list(
        aLarge.runs.map((x) => x.ms),
        'ms',
      )}); ${count(aSmall.registryKeys)}: ${aSmall.ms} ms, ${aSmall.alertsSent} alerts; from the sources: ${aSrcLarge.ms} / ${aSrcSmall.ms} ms`,
    },
    {
      metric: `license alerts, peak RSS ${count(aLarge.registryKeys)} keys`,
      value: aLarge.peakRssMb,
      unit: 'MB',
      target: 250,
      detail: `${medianOf(aLarge.runs.length)} (${peaks(aLarge)}); ${aLarge.runs[0]!.startRssMb} MB before the run; new space ${aLarge.runs[0]!.newSpaceMb} MB at the end; from the sources under V8's defaults: ${aSrcLarge.peakRssMb} MB (${peaks(aSrcLarge)}), new space ${aSrcLarge.runs[0]!.newSpaceMb} MB`,
    },
    {
      metric: `license alerts, peak RSS ${count(aLarge.registryKeys)} / ${count(aSmall.registryKeys)} keys (flat)`,
      value: r.alertsRssRatio,
      unit: '×',
      target: 1.15,
      detail: `${aLarge.peakRssMb} MB against ${aSmall.peakRssMb} MB (${count(aSmall.registryKeys)}: ${peaks(aSmall)}); live heap after a full GC before→after the run ${live(aLarge)} at ${count(aLarge.registryKeys)}, ${live(aSmall)} at ${count(aSmall.registryKeys)}; from the sources: ${r.alertsRssRatioSource}× (${aSrcLarge.peakRssMb} against ${aSrcSmall.peakRssMb} MB)`,
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
      )}); ${count(small.registryKeys)}: ${small.ms} ms, ${small.keysPerS} keys/s; from the sources: ${srcLarge.keysPerS} keys/s; concurrency ${r.concurrency}, pages of 1000`,
    },
    {
      metric: `license registry read, consumer peak RSS ${count(large.registryKeys)}`,
      value: large.peakRssMb,
      unit: 'MB',
      target: 250,
      detail: `median of ${large.runs.length} (${peaks(large)}); ${large.runs[0]!.startRssMb} MB before the read; new space ${large.runs[0]!.newSpaceMb} MB at the end; from the sources under V8's defaults: ${srcLarge.peakRssMb} MB (${peaks(srcLarge)}), new space ${srcLarge.runs[0]!.newSpaceMb} MB`,
    },
    {
      metric: `license registry read, peak RSS ${count(large.registryKeys)} / ${count(small.registryKeys)} keys (flat)`,
      value: r.rssRatio,
      unit: '×',
      target: 1.15,
      detail: `${large.peakRssMb} MB against ${small.peakRssMb} MB (${count(small.registryKeys)}: ${peaks(small)}); live heap after a full GC before→after the read ${live(large)}; from the sources: ${r.rssRatioSource}× (${srcLarge.peakRssMb} against ${srcSmall.peakRssMb} MB)`,
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
  const { small, large, srcSmall, srcLarge, aSmall, aLarge, aSrcLarge, flags } = parts(r);
  return `## License registry

${resultsTable(rows(r))}

- bench/license-registry.ts: one emulator per size (seed 7, 5000 clients, \`registryKeys\` 100k and 1M: keys without
  clients derived on demand, so start-up and memory hardly depend on the size), each in a child process. Every
  measuring run is a fresh process (bench/license-registry-consumer.ts), made two ways: **as the Lambda runs**,
  bundled with the Lambda's build options (bench/lambda-bundle.ts, ${r.bundleKb} KiB of JS) and started with the license alerts
  function's NODE_OPTIONS (\`${flags}\`, from its memory: lib/constructs/node-options.ts), on which the targets
  are read; and **from the sources**, type-stripped, under this machine's V8 defaults (what \`pulse licenses\` does on
  a workstation), shown beside them.
- The alerts rows run the real job, \`runLicenseAlerts\` (src/licenses/alerts/run-license-alerts.ts), ${aLarge.runs.length} runs per
  size and variant, sizes taking turns, as the hourly Lambda does: the emulator's first product, a \`licenses\`
  section with the owner and one route (keys ending in an even digit), the default stages, "now" pinned to noon of
  the emulator's today. The ledger is a \`DynamoDbLedger\` on dynalite and the mailer \`smtpMailer\` on the SMTP
  sink; both peers run in another child process, fresh per run (an empty ledger, so every alert is new), so their
  memory is not counted. ${aLarge.alertsSent} alerts at ${count(aLarge.registryKeys)} keys (${aSmall.alertsSent} at ${count(aSmall.registryKeys)}), each claimed and completed in the ledger, in
  ${aLarge.emails} emails whose CSV attachments hold every alert. Targets (issue 11): peak RSS ≤ 250 MB at 1M,
  ${met(aLarge.peakRssMb <= 250)} (${aLarge.peakRssMb} MB); 1M / 100k ≤ 1.15×, ${met(r.alertsRssRatio <= 1.15)} (${r.alertsRssRatio}×).
- Why the job's memory does not grow with the registry: each key is evaluated as its page arrives and its alerts
  are appended to a file per recipient (src/licenses/alerts/alert-spool.ts, in the OS temp dir, Lambda's /tmp),
  then read back 1000 at a time: claimed, their usage fetched, added to the email's draft
  (alert-email-draft.ts), which keeps the counts and the ${'`maxKeysInEmail`'} most urgent alerts in memory and the CSV
  lines and ledger keys on disk; the CSV reaches the mailer as a stream, the ledger keys reach \`sendClaimed\` as
  one. \`DynamoDbLedger\` keeps no state per claim (one token per instance). So the process holds a few pages, one
  batch and the draft, whatever the number of keys or alerts; the live heap after the run is where it started
  (${live(aLarge)}).
- From the sources under this machine's defaults the same job peaks at ${aSrcLarge.peakRssMb} MB (${r.alertsRssRatioSource}×): about
  ${aLarge.runs[0]!.startRssMb < aSrcLarge.runs[0]!.startRssMb ? aSrcLarge.runs[0]!.startRssMb - aLarge.runs[0]!.startRssMb : 0} MB more before the first key (type-stripping the sources, loading every module unbundled), and a young generation V8 lets grow to
  ${aSrcLarge.runs[0]!.newSpaceMb} MB on a machine this size: garbage room, not data. The Lambda's flags cap it at ${aLarge.runs[0]!.newSpaceMb} MB.
- The bare-read rows isolate the stream: the same processes read the whole registry with \`streamRegistry\`
  (src/licenses/shared/registry-stream.ts) at the config's default concurrency (${r.concurrency}), 1000 keys per page, over one
  session, looking at every key (${small.runs.length} processes per size and variant). The stream holds at most
  ${r.concurrency} pages; the live heap after a full collection hardly moves (${live(small)} at ${count(small.registryKeys)}, ${live(large)} at ${count(large.registryKeys)}).
  As the Lambda runs: ${large.peakRssMb} MB (≤ 250) ${met(large.peakRssMb <= 250)}, ${r.rssRatio}× (≤ 1.15) ${met(r.rssRatio <= 1.15)}; from the sources:
  ${srcLarge.peakRssMb} MB, ${r.rssRatioSource}× (${srcSmall.peakRssMb} MB at ${count(srcSmall.registryKeys)}).
`;
}
