/** Scratch files on the real disk: what is appended comes back in order, as lines or bytes, and the folder goes. */
import { readdir, stat } from 'node:fs/promises';
import { expect, it } from 'vitest';
import { jsonBatches, ScratchDir } from '../../src/core/spill-file.ts';

it('gives back every appended line in order, across writes, and removes its folder', async () => {
  const dir = await ScratchDir.create('pulse-spill-test');
  try {
    const file = dir.file();
    const rows = Array.from({ length: 30_000 }, (_, i) => [i, `ü😀 "quoted"\n${'x'.repeat(i % 50)}`]);
    for (const row of rows) {
      file.append(`${JSON.stringify(row)}\n`);
      await file.flushIfFull();
    }
    // Written in several appends already (30000 lines of ~60 characters pass the write threshold), the rest buffered.
    expect((await stat(file.path)).size).toBeGreaterThan(0);
    const batches: unknown[][][] = [];
    for await (const batch of jsonBatches<unknown[]>(file.lines(), 7000)) batches.push(batch);
    expect(batches.map((b) => b.length)).toEqual([7000, 7000, 7000, 7000, 2000]);
    expect(batches.flat()).toEqual(rows);

    const csv = dir.file();
    csv.append('a,"b\r\nc"\r\n');
    const chunks: Uint8Array[] = [];
    for await (const chunk of csv.bytes()) chunks.push(chunk);
    expect(Buffer.concat(chunks).toString('utf8')).toBe('a,"b\r\nc"\r\n');

    const empty = dir.file();
    const lines: string[] = [];
    for await (const line of empty.lines()) lines.push(line);
    expect(lines).toEqual([]);
  } finally {
    await dir.remove();
  }
  await expect(readdir(dir.path)).rejects.toMatchObject({ code: 'ENOENT' });
});
