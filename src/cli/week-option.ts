/**
 * `--week 2026-W46`, checked before anything starts: a malformed or non-existent week is a usage error. A lowercase
 * w (`2026-w46`, as the file names write it) is the same week; the value passed on is the ISO form, which the
 * ledger keys and archive paths use.
 */
import { parseIsoWeek } from '../core/calendar.ts';
import { UsageError } from './io.ts';

export function weekOption(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const week = value.replace(/^(\d{4})-w/, '$1-W');
  try {
    parseIsoWeek(week);
  } catch (e) {
    throw new UsageError(`--week: ${(e as Error).message}`);
  }
  return week;
}
