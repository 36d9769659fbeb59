/** Bounded parallelism for batches of calls (downloads, per-product reports) without flooding the service. */

/**
 * Runs `fn` over `items` with at most `limit` calls in flight; resolves with the results in input order.
 * Fails fast: after the first rejection no further item is started, and once the calls already in flight have
 * settled (so none is left running unobserved) the promise rejects with that first error.
 * Items are pulled from the iterable lazily, one per free slot, so a generator is never read ahead.
 */
export async function mapWithConcurrency<T, R>(
  items: Iterable<T>,
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be an integer ≥ 1, got ${limit}`);
  const iterator = items[Symbol.iterator]();
  const results: R[] = [];
  let next = 0;
  let failed = false;
  let firstError: unknown;

  const fail = (e: unknown): void => {
    if (failed) return;
    failed = true;
    firstError = e;
  };

  const worker = async (): Promise<void> => {
    while (!failed) {
      let step: IteratorResult<T>;
      try {
        step = iterator.next();
      } catch (e) {
        return fail(e);
      }
      if (step.done) return;
      const index = next++;
      try {
        results[index] = await fn(step.value, index);
      } catch (e) {
        fail(e);
      }
    }
  };

  await Promise.all(Array.from({ length: limit }, worker));
  if (!failed) return results;
  // Close a generator we stopped reading early, so its `finally` blocks run.
  try {
    iterator.return?.();
  } catch {
    // the first error is the one worth reporting
  }
  throw firstError;
}
