/** One state change as one line of the CLI's output: the run's, the backtest's and a recomputation's. */
import type { StateChange } from './evaluate.ts';

/** `2026-11-24  exceptions-spike  12345678901  firing   212 is above 100` */
export function changeLine(c: StateChange): string {
  const where = c.segment === null ? c.productId : `${c.productId} ${c.segment}`;
  const state = c.repeat ? 'firing (still)' : c.state;
  return `${c.period}  ${c.ruleId}  ${where}  ${state.padEnd(8)}  ${c.verdict.reason}`;
}
