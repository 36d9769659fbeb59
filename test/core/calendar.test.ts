/** ISO weeks in time zones: year boundaries, DST transitions, zones on both sides of UTC, labels, due checks. */
import { describe, expect, it } from 'vitest';
import {
  addDays,
  isDue,
  isoWeekOf,
  lastCompleteIsoWeek,
  localDateTime,
  parseIsoWeek,
  reportWeek,
  shiftIsoWeek,
  type WeeklySchedule,
  weekLabel,
  weeksEndingWith,
} from '../../src/core/calendar.ts';

const at = (iso: string) => new Date(iso);
const weekday = (date: string) => new Date(`${date}T00:00:00Z`).getUTCDay(); // 0 = Sunday

describe('isoWeekOf', () => {
  it('gives Monday to Sunday around a mid-year date', () => {
    expect(isoWeekOf('2026-11-12')).toEqual({ isoWeek: '2026-W46', start: '2026-11-09', stop: '2026-11-15' });
    expect(isoWeekOf('2026-11-09')).toEqual(isoWeekOf('2026-11-15'));
  });

  it('numbers weeks by the year of their Thursday across New Year', () => {
    // 2026 starts on a Thursday, so it has 53 weeks; 2027-W01 starts on 4 January 2027.
    expect(isoWeekOf('2026-12-31').isoWeek).toBe('2026-W53');
    expect(isoWeekOf('2027-01-03')).toEqual({ isoWeek: '2026-W53', start: '2026-12-28', stop: '2027-01-03' });
    expect(isoWeekOf('2027-01-04').isoWeek).toBe('2027-W01');
    // 29 December 2025 (a Monday) already belongs to 2026-W01.
    expect(isoWeekOf('2025-12-29')).toEqual({ isoWeek: '2026-W01', start: '2025-12-29', stop: '2026-01-04' });
    expect(isoWeekOf('2025-12-28').isoWeek).toBe('2025-W52');
  });

  it('agrees with day arithmetic for every day of several years', () => {
    let previous = isoWeekOf('2024-01-01');
    for (let date = '2024-01-02'; date <= '2028-12-31'; date = addDays(date, 1)) {
      const w = isoWeekOf(date);
      expect(weekday(w.start)).toBe(1);
      expect(addDays(w.start, 6)).toBe(w.stop);
      expect(w.start <= date && date <= w.stop).toBe(true);
      if (weekday(date) === 1) expect(w).toEqual(shiftIsoWeek(previous, 1));
      else expect(w).toEqual(previous);
      expect(parseIsoWeek(w.isoWeek)).toEqual(w);
      previous = w;
    }
  });
});

describe('parseIsoWeek', () => {
  it('round-trips existing weeks and refuses weeks a year does not have', () => {
    expect(parseIsoWeek('2026-W53').start).toBe('2026-12-28');
    expect(parseIsoWeek('2027-W01').start).toBe('2027-01-04');
    expect(() => parseIsoWeek('2027-W53')).toThrow(/does not exist/);
    expect(() => parseIsoWeek('2026-W00')).toThrow(RangeError);
    expect(() => parseIsoWeek('2026-46')).toThrow(/ISO week like/);
  });
});

describe('lastCompleteIsoWeek', () => {
  it('is the week before the one holding the local date', () => {
    // Friday 20 Nov 2026, noon UTC: W47 is running, W46 is the last complete week everywhere.
    for (const tz of ['UTC', 'Europe/Berlin', 'America/Los_Angeles', 'Asia/Tokyo', 'Pacific/Kiritimati'])
      expect(lastCompleteIsoWeek(at('2026-11-20T12:00:00Z'), tz)).toEqual({
        isoWeek: '2026-W46',
        start: '2026-11-09',
        stop: '2026-11-15',
      });
  });

  it('depends on the zone around Sunday midnight, on both sides of UTC', () => {
    // Sunday 15 Nov 23:30 UTC: already Monday in Berlin and Tokyo, still Sunday in UTC and New York.
    const now = at('2026-11-15T23:30:00Z');
    expect(lastCompleteIsoWeek(now, 'Europe/Berlin').isoWeek).toBe('2026-W46');
    expect(lastCompleteIsoWeek(now, 'Asia/Tokyo').isoWeek).toBe('2026-W46');
    expect(lastCompleteIsoWeek(now, 'UTC').isoWeek).toBe('2026-W45');
    expect(lastCompleteIsoWeek(now, 'America/New_York').isoWeek).toBe('2026-W45');
    // Monday 16 Nov 03:00 UTC: still Sunday evening in Los Angeles.
    expect(lastCompleteIsoWeek(at('2026-11-16T03:00:00Z'), 'America/Los_Angeles').isoWeek).toBe('2026-W45');
    expect(lastCompleteIsoWeek(at('2026-11-16T03:00:00Z'), 'UTC').isoWeek).toBe('2026-W46');
  });

  it('crosses the year boundary: 2026-W53 ends on 3 January 2027', () => {
    expect(lastCompleteIsoWeek(at('2027-01-04T08:00:00Z'), 'Europe/Berlin')).toEqual(parseIsoWeek('2026-W53'));
    expect(lastCompleteIsoWeek(at('2027-01-11T08:00:00Z'), 'Europe/Berlin').isoWeek).toBe('2027-W01');
    // New Year's Eve in Auckland is still 2026 in UTC.
    expect(lastCompleteIsoWeek(at('2027-01-03T12:00:00Z'), 'Pacific/Auckland').isoWeek).toBe('2026-W53');
    expect(lastCompleteIsoWeek(at('2027-01-03T12:00:00Z'), 'UTC').isoWeek).toBe('2026-W52');
  });

  it('is unaffected by DST changes inside the week', () => {
    // Europe leaves summer time on Sunday 25 Oct 2026; the US on Sunday 1 Nov 2026.
    expect(lastCompleteIsoWeek(at('2026-10-26T07:00:00Z'), 'Europe/Berlin')).toEqual(parseIsoWeek('2026-W43'));
    expect(parseIsoWeek('2026-W43')).toEqual({ isoWeek: '2026-W43', start: '2026-10-19', stop: '2026-10-25' });
    expect(lastCompleteIsoWeek(at('2026-11-02T13:00:00Z'), 'America/New_York').stop).toBe('2026-11-01');
    // Sunday 29 Mar 2026 23:30 local (21:30 UTC, summer time since 02:00) is still that Sunday.
    expect(localDateTime(at('2026-03-29T21:30:00Z'), 'Europe/Berlin')).toEqual({ date: '2026-03-29', time: '23:30' });
    expect(lastCompleteIsoWeek(at('2026-03-29T21:30:00Z'), 'Europe/Berlin').isoWeek).toBe('2026-W12');
  });
});

describe('weeks before and labels', () => {
  it('lists the weeks ending with a week, oldest first, across a year boundary', () => {
    const weeks = weeksEndingWith(parseIsoWeek('2027-W02'), 4).map((w) => w.isoWeek);
    expect(weeks).toEqual(['2026-W52', '2026-W53', '2027-W01', '2027-W02']);
  });

  it('labels a week within a month, across months and across years', () => {
    expect(weekLabel(parseIsoWeek('2026-W46'))).toBe('Week 46 · 9–15 Nov 2026');
    expect(weekLabel(parseIsoWeek('2026-W49'))).toBe('Week 49 · 30 Nov – 6 Dec 2026');
    expect(weekLabel(parseIsoWeek('2026-W53'))).toBe('Week 53 · 28 Dec 2026 – 3 Jan 2027');
    expect(weekLabel(parseIsoWeek('2027-W01'))).toBe('Week 1 · 4–10 Jan 2027');
  });
});

describe('isDue', () => {
  const monday8: WeeklySchedule = { day: 'monday', time: '08:00', timeZone: 'Europe/Berlin' };

  it('is due once the local weekday and time have passed in the current week', () => {
    expect(isDue(at('2026-11-16T06:59:00Z'), monday8)).toBe(false); // 07:59 in Berlin
    expect(isDue(at('2026-11-16T07:00:00Z'), monday8)).toBe(true); // 08:00 in Berlin
    expect(isDue(at('2026-11-20T12:00:00Z'), monday8)).toBe(true); // later that week
    expect(isDue(at('2026-11-15T22:00:00Z'), monday8)).toBe(true); // Sunday 23:00: still that week, still due
    expect(isDue(at('2026-11-15T23:30:00Z'), monday8)).toBe(false); // Monday 00:30: a new week, not yet 08:00
  });

  it("uses the recipient's zone when given, on both sides of UTC", () => {
    const now = at('2026-11-16T07:30:00Z');
    expect(isDue(now, monday8, 'Asia/Tokyo')).toBe(true); // 16:30 Monday
    expect(isDue(now, monday8, 'America/New_York')).toBe(false); // 02:30 Monday
    expect(isDue(at('2026-11-16T13:00:00Z'), monday8, 'America/New_York')).toBe(true); // 08:00 Monday
  });

  it('follows the wall clock over DST changes', () => {
    const sunday2 = { day: 'sunday', time: '02:30', timeZone: 'Europe/Berlin' } as const;
    // 29 Mar 2026 Berlin skips 02:00–03:00: 01:59 is not due, 03:00 (01:00 UTC) is.
    expect(isDue(at('2026-03-29T00:59:00Z'), sunday2)).toBe(false);
    expect(isDue(at('2026-03-29T01:00:00Z'), sunday2)).toBe(true);
    // After the US switch to standard time, Monday 08:00 New York is 13:00 UTC (it was 12:00 the week before).
    const ny = { day: 'monday', time: '08:00', timeZone: 'America/New_York' } as const;
    expect(isDue(at('2026-10-26T12:00:00Z'), ny)).toBe(true);
    expect(isDue(at('2026-11-02T12:30:00Z'), ny)).toBe(false);
    expect(isDue(at('2026-11-02T13:00:00Z'), ny)).toBe(true);
  });
});

describe('reportWeek', () => {
  it('takes the last complete week, or the one before while it still runs in UTC', () => {
    // Monday 00:30 in Berlin is still Sunday in UTC: the service's week 46 is not over yet.
    const early = reportWeek(new Date('2026-11-15T23:30:00Z'), 'Europe/Berlin');
    expect(early).toEqual({ week: expect.objectContaining({ isoWeek: '2026-W45' }), stillRunningInUtc: true });
    const later = reportWeek(new Date('2026-11-16T08:00:00Z'), 'Europe/Berlin');
    expect(later).toEqual({ week: expect.objectContaining({ isoWeek: '2026-W46' }), stillRunningInUtc: false });
    expect(reportWeek(new Date('2026-11-16T08:00:00Z'), 'UTC', '2026-W40').week.isoWeek).toBe('2026-W40');
  });
});
