/** `--week 2026-W46`, checked before anything starts: a malformed or non-existent week is a usage error. */
import { parseIsoWeek } from '../core/calendar.ts';
import { UsageError } from './io.ts';

export function weekOption(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    parseIsoWeek(value);
  } catch (e) {
    throw new UsageError(`--week: ${(e as Error).message}`);
  }
  return value;
}
