/** Building blocks of the config schema shared by its sections (schema.ts, licenses-schema.ts). */
import * as z from 'zod';

const isTimeZone = (tz: string): boolean => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
};

export const TimeZone = z
  .string()
  .refine(isTimeZone, { message: 'unknown IANA time zone (e.g. Europe/Berlin)' })
  .describe('IANA time zone, e.g. Europe/Berlin');
export const Email = z.email().describe('e-mail address');

export const ProductId = z
  .string()
  .regex(/^\d{1,20}$/, 'a product id is a string of digits')
  .describe('product id (string)');

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;

export const LocalTime = z
  .string()
  .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'HH:MM, 24-hour')
  .describe('local time, HH:MM (24-hour)');

export const WeeklySchedule = z
  .strictObject({
    day: z.enum(WEEKDAYS).default('monday'),
    time: LocalTime.default('08:00'),
    timeZone: TimeZone.default('UTC'),
  })
  .default({ day: 'monday', time: '08:00', timeZone: 'UTC' });

/** Longest title or name in the config: they go into subjects and headings, where more is a mistake. */
export const MAX_TEXT_LENGTH = 200;

/** A person's display name: at most MAX_TEXT_LENGTH characters. */
export const Name = z.string().max(MAX_TEXT_LENGTH, `at most ${MAX_TEXT_LENGTH} characters`);

/** A title or product name: 1 to MAX_TEXT_LENGTH characters. */
export const Text = Name.min(1);

export const Recipient = z.strictObject({
  address: Email,
  name: Name.optional(),
  timeZone: TimeZone.optional().describe('delivery time zone of this recipient; default: the schedule time zone'),
});
