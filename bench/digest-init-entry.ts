/**
 * The digest Lambda's module as bench/digest-function.ts bundles it: the handler (which starts the chart renderer at
 * module init) plus a handle on that same renderer's init, so a probe can wait for it to finish.
 */
export { handler } from '../functions/digest/handler.ts';
export { initChartRenderer } from '../src/charts/index.ts';
