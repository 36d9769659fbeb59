/**
 * The pure stage function: calendar-day counting in the recipient's zone (DST changes, a leap day, the expiry day),
 * the most urgent stage only after missed days, the grace of the last stage, conditions, and the ledger key that
 * makes a renewed key start over.
 */
import { describe, expect, it } from 'vitest';
import { LICENSE_STAGE_DEFAULTS } from '../../src/config/licenses-schema.ts';
import { localDateTime } from '../../src/core/calendar.ts';
import { licenseAlertLedgerKey } from '../../src/core/delivery/ledger-keys.ts';
import {
  daysUntil,
  expiryStage,
  LAST_STAGE_GRACE_DAYS,
  type StageRules,
  stagesOf,
  urgencyOf,
} from '../../src/licenses/alerts/stage.ts';
import type { RegistryKey } from '../../src/licenses/shared/registry-key.ts';

const RULES: StageRules = { ...LICENSE_STAGE_DEFAULTS, blockedSeenWithinDays: 7 };

const key = (over: Partial<RegistryKey> = {}): RegistryKey => ({
  licenseKey: 'K-1',
  licenseType: 'purchased',
  status: { activated: true, allowed: true, blocked: false, expired: false },
  expiryDate: '2026-12-01',
  addedDate: '2025-01-01',
  autoCollected: true,
  quota: null,
  clientCount: 1,
  overQuotaCount: 0,
  lastSeenDate: '2026-11-20',
  ...over,
});

/** The stage of a key expiring on `expiry`, at the instant `at`, for a recipient in `zone`. */
const stageAt = (expiry: string, at: string, zone: string) => {
  const today = localDateTime(new Date(at), zone).date;
  return {
    today,
    daysLeft: daysUntil(expiry, today),
    stages: stagesOf(key({ expiryDate: expiry }), today, at.slice(0, 10), RULES),
  };
};

describe('days before expiry are calendar days in the recipient zone', () => {
  it.each([
    // One instant, three zones: the local date decides, not the 24-hour distance to a UTC midnight.
    ['2026-11-30T12:00:00Z', 'UTC', '2026-11-30', 1],
    ['2026-11-30T12:00:00Z', 'Pacific/Kiritimati', '2026-12-01', 0], // UTC+14: already the expiry day
    ['2026-11-30T12:00:00Z', 'Pacific/Pago_Pago', '2026-11-30', 1], // UTC−11
    ['2026-11-30T23:30:00Z', 'Asia/Tokyo', '2026-12-01', 0],
    ['2026-11-30T03:00:00Z', 'America/Los_Angeles', '2026-11-29', 2],
    ['2026-11-30T05:00:00Z', 'America/Los_Angeles', '2026-11-29', 2],
    ['2026-11-30T08:00:00Z', 'America/Los_Angeles', '2026-11-30', 1],
  ])('at %s in %s the local day is %s: %i day(s) left', (at, zone, day, left) => {
    const s = stageAt('2026-12-01', at, zone);
    expect(s.today).toBe(day);
    expect(s.daysLeft).toBe(left);
  });

  it('is "1 day" on the day before in every zone, whatever the hour', () => {
    for (const zone of ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe']) {
      for (const hour of ['00:01', '12:00', '23:59']) {
        // The instant whose local date is 2026-11-30 at that hour: search the two UTC days around it.
        const hits = [-1, 0, 1]
          .map((d) => new Date(Date.parse(`2026-11-30T${hour}:00Z`) + d * 86_400_000))
          .filter((t) => localDateTime(t, zone).date === '2026-11-30');
        for (const t of hits) expect(stageAt('2026-12-01', t.toISOString(), zone).stages).toEqual(['before-1']);
      }
    }
  });

  it('counts across a DST change as whole days (Berlin 29 Mar 2026, New York 1 Nov 2026)', () => {
    // Spring forward: 28 → 29 March has 23 hours in Berlin; still 1 day.
    expect(stageAt('2026-03-29', '2026-03-27T23:30:00Z', 'Europe/Berlin')).toMatchObject({
      today: '2026-03-28',
      daysLeft: 1,
    });
    expect(stageAt('2026-04-05', '2026-03-29T22:30:00Z', 'Europe/Berlin')).toMatchObject({
      today: '2026-03-30',
      daysLeft: 6,
    });
    // Fall back: 1 November has 25 hours in New York; 7 days before 8 November is 1 November.
    const ny = stageAt('2026-11-08', '2026-11-01T04:30:00Z', 'America/New_York');
    expect(ny).toMatchObject({ today: '2026-11-01', daysLeft: 7, stages: ['before-7'] });
    expect(stageAt('2026-11-08', '2026-11-01T03:30:00Z', 'America/New_York')).toMatchObject({
      today: '2026-10-31',
      daysLeft: 8,
    });
  });

  it('counts a leap day', () => {
    expect(daysUntil('2028-03-01', '2028-02-28')).toBe(2);
    expect(daysUntil('2028-03-01', '2028-02-29')).toBe(1);
    expect(stageAt('2028-03-01', '2028-02-29T10:00:00Z', 'Asia/Tokyo').stages).toEqual(['before-1']);
    expect(stageAt('2028-02-29', '2028-02-29T10:00:00Z', 'Europe/Berlin').stages).toEqual(['expiry-day']);
    expect(daysUntil('2027-03-01', '2027-02-28')).toBe(1);
  });

  it('the expiry day itself, and after it', () => {
    expect(stageAt('2026-12-01', '2026-12-01T09:00:00Z', 'Europe/Berlin').stages).toEqual(['expiry-day']);
    expect(expiryStage(0, { ...RULES, onExpiryDay: false })).toBe('before-1');
    expect(expiryStage(-1, RULES)).toBe('after-1');
    expect(expiryStage(-6, RULES)).toBe('after-1');
    expect(expiryStage(-7, RULES)).toBe('after-7');
    expect(expiryStage(-30, RULES)).toBe('after-30');
  });
});

describe('stages', () => {
  it('is in no stage before the first one', () => {
    expect(expiryStage(61, RULES)).toBeNull();
    expect(expiryStage(60, RULES)).toBe('before-60');
  });

  it('after missed days gives only the most urgent stage it is in, never a burst', () => {
    // Stages 60, 30, 14 and 7 were never sent; at 5 days left only the 7-day stage is due.
    expect(expiryStage(5, RULES)).toBe('before-7');
    expect(expiryStage(8, RULES)).toBe('before-14');
    expect(stagesOf(key({ expiryDate: '2026-11-25' }), '2026-11-20', '2026-11-20', RULES)).toEqual(['before-7']);
  });

  it('keeps the last after-expiry stage for a grace period, then only an expired key still in use alerts', () => {
    expect(expiryStage(-(30 + LAST_STAGE_GRACE_DAYS - 1), RULES)).toBe('after-30');
    expect(expiryStage(-(30 + LAST_STAGE_GRACE_DAYS), RULES)).toBeNull();
    const old = { expiryDate: '2026-01-01' };
    expect(stagesOf(key({ ...old, lastSeenDate: '2026-11-19' }), '2026-11-20', '2026-11-20', RULES)).toEqual([
      'expired-in-use',
    ]);
    expect(stagesOf(key({ ...old, lastSeenDate: '2025-12-30' }), '2026-11-20', '2026-11-20', RULES)).toEqual([]);
  });

  it('adds the conditions: over quota, blocked but seen within the window', () => {
    expect(stagesOf(key({ expiryDate: null, overQuotaCount: 2 }), '2026-11-20', '2026-11-20', RULES)).toEqual([
      'over-quota',
    ]);
    const blocked = {
      expiryDate: '2026-11-25',
      status: { activated: true, allowed: false, blocked: true, expired: false },
    };
    expect(stagesOf(key({ ...blocked, lastSeenDate: '2026-11-14' }), '2026-11-20', '2026-11-20', RULES)).toEqual([
      'blocked-in-use',
    ]);
    // Seen 7 days ago is outside "within 7 days"; a blocked key gets no renewal reminder.
    expect(stagesOf(key({ ...blocked, lastSeenDate: '2026-11-13' }), '2026-11-20', '2026-11-20', RULES)).toEqual([]);
  });

  it('orders urgency: leaks, the expiry day, nearer stages, over quota last', () => {
    const order = ['over-quota', 'before-60', 'after-1', 'before-1', 'expiry-day', 'expired-in-use', 'blocked-in-use'];
    const sorted = [...order].sort((a, b) => urgencyOf(a as never) - urgencyOf(b as never));
    expect(sorted).toEqual([
      'blocked-in-use',
      'expired-in-use',
      'expiry-day',
      'before-1',
      'after-1',
      'before-60',
      'over-quota',
    ]);
  });
});

describe('ledger keys', () => {
  const base = {
    productId: '123',
    licenseKey: 'K-1',
    stage: 'before-7' as const,
    expiryDate: '2026-12-01',
    address: 'A@x.com',
  };

  it('differ when the expiry moved, so a renewed key starts its stages again', () => {
    expect(licenseAlertLedgerKey(base)).toBe('license-alert#123#K-1#before-7#2026-12-01#a@x.com');
    expect(licenseAlertLedgerKey({ ...base, expiryDate: '2027-12-01' })).not.toBe(licenseAlertLedgerKey(base));
  });

  it('encode hostile key text: separators, spaces, unicode; long keys by their hash', () => {
    const hostile = licenseAlertLedgerKey({ ...base, licenseKey: 'a#b c/ü😀' });
    expect(hostile).toBe('license-alert#123#a%23b%20c%2F%C3%BC%F0%9F%98%80#before-7#2026-12-01#a@x.com');
    expect(hostile.split('#')).toHaveLength(6);
    const long = licenseAlertLedgerKey({ ...base, licenseKey: '€'.repeat(256) });
    expect(long).toMatch(/^license-alert#123#sha256-[0-9a-f]{64}#/);
    expect(licenseAlertLedgerKey({ ...base, licenseKey: '€'.repeat(255) })).not.toBe(long);
  });
});
