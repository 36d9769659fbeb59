/**
 * Small helpers for the figures every bench child reports. Kept apart from processes.ts so that a measuring child
 * (bench/archive-transfer.ts, bundled like a Lambda) loads nothing but what it measures.
 */
export const peakRssMb = () => Math.round(process.resourceUsage().maxRSS / 1024);
export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
export const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;
