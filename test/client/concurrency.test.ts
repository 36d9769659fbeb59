import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { mapWithConcurrency } from '../../src/client/index.ts';

/** Counts calls in flight, so a test can check the cap. */
function tracker() {
  const t = { inFlight: 0, peak: 0, started: [] as number[], settled: [] as number[] };
  return {
    t,
    run: async <R>(index: number, ms: number, fn: () => R): Promise<R> => {
      t.started.push(index);
      t.inFlight++;
      t.peak = Math.max(t.peak, t.inFlight);
      try {
        await sleep(ms);
        return fn();
      } finally {
        t.inFlight--;
        t.settled.push(index);
      }
    },
  };
}

describe('mapWithConcurrency', () => {
  it('keeps input order even when later items finish first', async () => {
    const delays = [30, 5, 20, 1, 10, 2];
    const out = await mapWithConcurrency(delays, 3, async (ms, i) => {
      await sleep(ms);
      return `${i}:${ms}`;
    });
    expect(out).toEqual(delays.map((ms, i) => `${i}:${ms}`));
  });

  it('never runs more than `limit` calls at once, and uses the whole limit', async () => {
    const { t, run } = tracker();
    const out = await mapWithConcurrency(
      Array.from({ length: 20 }, (_, i) => i),
      4,
      (i) => run(i, 3 + (i % 3), () => i * 2),
    );
    expect(out).toEqual(Array.from({ length: 20 }, (_, i) => i * 2));
    expect(t.peak).toBe(4);
    expect(t.inFlight).toBe(0);
  });

  it('rejects with the first error, starts nothing after it, and lets in-flight calls settle first', async () => {
    const { t, run } = tracker();
    const first = new Error('item 2 failed');
    const later = new Error('item 1 failed later');
    const promise = mapWithConcurrency([0, 1, 2, 3, 4, 5, 6, 7], 3, (i) =>
      run(i, i === 2 ? 5 : 25, () => {
        if (i === 2) throw first;
        if (i === 1) throw later;
        return i;
      }),
    );
    await expect(promise).rejects.toBe(first);
    // 0–2 started together; once 2 failed no slot was refilled, and 0 and 1 (still running) settled before the end.
    expect(t.started).toEqual([0, 1, 2]);
    expect([...t.settled].sort()).toEqual([0, 1, 2]);
    expect(t.inFlight).toBe(0);
  });

  it('reads a generator lazily and closes it after a failure', async () => {
    const pulled: number[] = [];
    let closed = false;
    function* items() {
      try {
        for (let i = 0; i < 100; i++) {
          pulled.push(i);
          yield i;
        }
      } finally {
        closed = true;
      }
    }
    await expect(
      mapWithConcurrency(items(), 2, async (i) => {
        await sleep(2);
        if (i === 3) throw new Error('stop');
        return i;
      }),
    ).rejects.toThrow('stop');
    expect(pulled.length).toBeLessThanOrEqual(5);
    expect(closed).toBe(true);
  });

  it('handles an empty input and rejects a bad limit', async () => {
    expect(await mapWithConcurrency([], 3, async () => 1)).toEqual([]);
    await expect(mapWithConcurrency([1], 0, async () => 1)).rejects.toThrow(RangeError);
    await expect(mapWithConcurrency([1], 1.5, async () => 1)).rejects.toThrow(RangeError);
  });
});
