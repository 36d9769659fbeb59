/**
 * The Node options every Pulse function runs with (its NODE_OPTIONS), from its memory size. V8 sizes its heap from
 * the memory it believes the machine has; set explicitly, the heap fits the function whatever the runtime reports,
 * and bench/ runs the bundled jobs with exactly these options on a machine many times larger:
 * - the old generation at most half the memory, the rest left to code, buffers and sockets, so a job that
 *   allocates fast collects garbage instead of running the function out of memory;
 * - semi-spaces of 1/64 of that (8 MB at 1024 MB): on a large machine V8 lets the young generation grow to 128 MB
 *   under a steady stream of short-lived objects (pages of registry keys, SDK responses), all of it resident.
 * No AWS CDK import: the benches load this too.
 */
export function lambdaNodeOptions(memoryMb: number): string[] {
  const oldSpaceMb = Math.floor(memoryMb / 2);
  const semiSpaceMb = Math.min(16, Math.max(1, Math.floor(oldSpaceMb / 64)));
  return ['--enable-source-maps', `--max-old-space-size=${oldSpaceMb}`, `--max-semi-space-size=${semiSpaceMb}`];
}
