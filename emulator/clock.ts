/** The emulator's settable clock: real time shifted by an offset, so tests can move "today" and expire things. */
import { type Day, dayOfMs, parseDay } from './data/dates.ts';

export class Clock {
  private offsetMs = 0;

  constructor(startAtMs?: number) {
    if (startAtMs !== undefined) this.offsetMs = startAtMs - Date.now();
  }

  now(): number {
    return Date.now() + this.offsetMs;
  }

  today(): Day {
    return dayOfMs(this.now());
  }

  set(ms: number): void {
    this.offsetMs = ms - Date.now();
  }

  advance(ms: number): void {
    this.offsetMs += ms;
  }

  /** Noon UTC of a `YYYY-MM-DD` day, the default start time when a fixed `today` is configured. */
  static noonOf(date: string): number {
    const day = parseDay(date);
    if (day === undefined) throw new RangeError(`invalid date ${date}`);
    return day * 86_400_000 + 12 * 3_600_000;
  }
}
