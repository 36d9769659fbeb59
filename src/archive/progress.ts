/**
 * Progress of the copy step on a terminal: files done of the plan and bytes moved, one line redrawn at most every
 * `intervalMs`. Only when the stream is a TTY; anything else (pipes, CI logs, Lambda, tests) gets nothing.
 */
export interface ArchiveProgress {
  start(files: number): void;
  bytes(n: number): void;
  fileDone(): void;
  finish(): void;
}

export const silentProgress: ArchiveProgress = { start() {}, bytes() {}, fileDone() {}, finish() {} };

export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface ProgressOptions {
  intervalMs?: number;
  /** Milliseconds of a monotonic clock; injectable for tests. */
  now?: () => number;
}

const BAR_WIDTH = 24;

export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

export function terminalProgress(stream: ProgressStream, opts: ProgressOptions = {}): ArchiveProgress {
  if (!stream.isTTY) return silentProgress;
  const interval = opts.intervalMs ?? 100;
  const now = opts.now ?? (() => performance.now());
  let total = 0;
  let done = 0;
  let moved = 0;
  let drawnAt = Number.NEGATIVE_INFINITY;
  let active = false;

  const line = (): string => {
    const filled = total === 0 ? BAR_WIDTH : Math.round((done / total) * BAR_WIDTH);
    const bar = `${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}`;
    const text = `archive [${bar}] ${done}/${total} files · ${formatBytes(moved)}`;
    return stream.columns ? text.slice(0, stream.columns - 1) : text;
  };
  const draw = (force: boolean): void => {
    if (!active) return;
    const t = now();
    if (!force && t - drawnAt < interval) return;
    drawnAt = t;
    // Carriage return and erase-to-end-of-line: redraw in place.
    stream.write(`\r${line()}\x1b[K`);
  };

  return {
    start(files) {
      total = files;
      active = true;
      draw(true);
    },
    bytes(n) {
      moved += n;
      draw(false);
    },
    fileDone() {
      done++;
      draw(false);
    },
    finish() {
      draw(true);
      if (active) stream.write('\n');
      active = false;
    },
  };
}
