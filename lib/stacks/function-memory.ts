/**
 * Memory (MB) of the functions whose speed and memory bench/ measures: the stack gives them this, and the benches run
 * their bundles with the NODE_OPTIONS that follow from it (lib/constructs/node-options.ts).
 */
export const FUNCTION_MEMORY_MB = {
  /** A batch of four daily exports in flight; memory buys network and CPU for hashing as well. */
  archiveCopy: 1024,
  /** Peak ~250 MB over a 1M-key registry (bench/RESULTS.md "License registry"); the rest buys CPU for a long run. */
  licenseAlerts: 1024,
} as const;
