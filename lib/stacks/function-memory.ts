/**
 * Memory (MB) of the functions whose speed and memory bench/ measures: the stack gives them this, and the benches run
 * their bundles with the NODE_OPTIONS that follow from it (lib/constructs/node-options.ts).
 */
export const FUNCTION_MEMORY_MB = {
  /** A batch of four daily exports in flight; memory buys network and CPU for hashing as well. */
  archiveCopy: 1024,
  /**
   * The digest compiles the chart renderer's 2.4 MB wasm at init and rasterises a dozen charts per run: Lambda's CPU
   * share grows with memory, and 1024 MB (about 0.6 vCPU) keeps init and rendering near what bench/ measures.
   */
  digest: 1024,
  /** Peak ~250 MB over a 1M-key registry (bench/RESULTS.md "License registry"); the rest buys CPU for a long run. */
  licenseAlerts: 1024,
  /**
   * Not benched yet. A run holds a few report answers (one per product and metric family) and draws one chart per
   * alert it tells with the digest's renderer, where a digest draws dozens: in the bundled-handler tests a run telling
   * two alerts (renderer init included) and its rerun took 1.8 s together on two local cores.
   */
  usageAlerts: 512,
} as const;

/**
 * The digest function's timeout: its worst hourly run is a whole week's digests due at once (20 digests × 50
 * recipients in one time zone). bench/digest-run.ts runs exactly that as the function does (+100 ms per service call,
 * AWS peers with their latencies, Lambda's 0.58 vCPU at 1024 MB): 237 s at worst in the recorded runs, 316 s on a
 * loaded machine; × 1.5, rounded up to whole minutes: 8 minutes. bench/RESULTS.md holds the row.
 */
export const DIGEST_TIMEOUT_SECONDS = 480;
