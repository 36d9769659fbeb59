/** Bounded parallelism for batches of calls (downloads, per-product reports) without flooding the service. */

/**
 * Runs `fn` over `items` with at most `limit` calls in flight. Fails fast: after the first rejection no further
 * item is started, and once the calls already in flight have settled (so none is left running unobserved) the
 * promise rejects with that first error. Items are pulled lazily, one per free slot, so a generator is never read
 * ahead; an async iterable (lines of a file) is read one item at a time.
 */
export async function forEachWithConcurrency<T>(
  items: Iterable<T> | AsyncIterable<T>,
  limit: number,
  fn: (item: T, index: number) => Promise<void>,
): Promise<void> {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be an integer ≥ 1, got ${limit}`);
  const iterator =
    Symbol.asyncIterator in items ? items[Symbol.asyncIterator]() : (items as Iterable<T>)[Symbol.iterator]();
  let next = 0;
  let failed = false;
  let firstError: unknown;
  // One pull at a time: an async iterator asked twice at once may not answer in order.
  let pulling: Promise<unknown> = Promise.resolve();

  const fail = (e: unknown): void => {
    if (failed) return;
    failed = true;
    firstError = e;
  };
  const pull = (): Promise<IteratorResult<T>> => {
    const step = pulling.then(() => iterator.next());
    pulling = step.catch(() => undefined);
    return step;
  };

  const worker = async (): Promise<void> => {
    while (!failed) {
      let step: IteratorResult<T>;
      try {
        step = await pull();
      } catch (e) {
        return fail(e);
      }
      if (step.done || failed) return;
      const index = next++;
      try {
        await fn(step.value, index);
      } catch (e) {
        fail(e);
      }
    }
  };

  await Promise.all(Array.from({ length: limit }, worker));
  if (!failed) return;
  // Close a generator we stopped reading early, so its `finally` blocks run.
  try {
    await iterator.return?.();
  } catch {
    // the first error is the one worth reporting
  }
  throw firstError;
}

/** `forEachWithConcurrency` that resolves with the results in input order. */
export async function mapWithConcurrency<T, R>(
  items: Iterable<T>,
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = [];
  await forEachWithConcurrency(items, limit, async (item, index) => {
    results[index] = await fn(item, index);
  });
  return results;
}
