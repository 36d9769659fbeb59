/**
 * The `licenses` section of pulse.config.json: the rules of the license key alerts (`pulse licenses`), the weekly
 * license registry report (`pulse licenses report`) and who hears about what. docs/licenses.md "License alerts" explains each
 * field with an example.
 */
import * as z from 'zod';
import { ChannelIds } from './channels-schema.ts';
import { Email, LocalTime, Name, ProductId, Text, TimeZone, WeeklySchedule } from './common-schema.ts';

const Days = z.number().int().min(1).max(3650);

/** Distinct and most distant first, whatever order the file gives. */
const stageDays = (defaults: number[]) =>
  z
    .array(Days)
    .max(20)
    .default(defaults)
    .transform((days) => [...new Set(days)].sort((a, b) => b - a));

/** A recipient of license mail: "days before expiry" are counted in this time zone. */
export const LicenseRecipient = z.strictObject({
  address: Email,
  name: Name.optional(),
  timeZone: TimeZone.default('UTC').describe('where this recipient counts days (and gets scheduled mail)'),
});

const isRegExp = (pattern: string): boolean => {
  try {
    new RegExp(pattern, 'u');
    return true;
  } catch {
    return false;
  }
};

const Route = z
  .strictObject({
    productIds: z.array(ProductId).min(1).optional().describe('keys of these products (default: any)'),
    licenseTypes: z.array(z.string().min(1)).min(1).optional().describe('keys of these license types (default: any)'),
    keyPattern: z
      .string()
      .min(1)
      .max(500)
      .refine(isRegExp, { message: 'not a valid regular expression' })
      .optional()
      .describe('keys whose text matches this regular expression (JavaScript syntax, unicode mode; default: any)'),
    recipients: z
      .array(LicenseRecipient)
      .default([])
      .describe('who hears by email (a rule needs recipients or channels)'),
    channels: ChannelIds.describe('channels that hear of these keys (ids from `channels`)'),
  })
  .refine((r) => r.recipients.length > 0 || r.channels.length > 0, {
    message: 'needs recipients or channels',
    path: ['recipients'],
  });

export const LICENSE_STAGE_DEFAULTS = { daysBefore: [60, 30, 14, 7, 1], onExpiryDay: true, daysAfter: [1, 7, 30] };

export const Licenses = z.strictObject({
  productIds: z
    .array(ProductId)
    .min(1)
    .optional()
    .describe('products whose license key registry is watched (default: every product with the registry feature)'),
  stages: z
    .strictObject({
      daysBefore: stageDays(LICENSE_STAGE_DEFAULTS.daysBefore).describe('alert stages, in days before expiry'),
      onExpiryDay: z.boolean().default(true).describe('an alert on the expiry day itself'),
      daysAfter: stageDays(LICENSE_STAGE_DEFAULTS.daysAfter).describe('alert stages, in days after expiry'),
    })
    .prefault({}),
  inUse: z
    .strictObject({
      blockedSeenWithinDays: Days.max(365)
        .default(7)
        .describe('a blocked key is still in use when a client reported it within this many days'),
    })
    .default({ blockedSeenWithinDays: 7 }),
  trialTypes: z
    .array(z.string().min(1))
    .default(['trial'])
    .describe('license types that are trials: an expiring trial is a conversion candidate'),
  usage: z
    .strictObject({
      windowDays: Days.max(365)
        .default(30)
        .describe('the usage window: clients seen in the last N days and the N before'),
      heavyClients: z
        .number()
        .int()
        .min(1)
        .default(5)
        .describe('"renewal priority": expiring, and at least this many clients seen in the last window'),
      dormantClients: z
        .number()
        .int()
        .min(0)
        .default(0)
        .describe('"at risk": expiring, and at most this many clients seen in the last window'),
    })
    .default({ windowDays: 30, heavyClients: 5, dormantClients: 0 }),
  routing: z
    .array(Route)
    .default([])
    .describe('who hears about which keys: the first matching rule wins; keys no rule matches go to the owner'),
  owner: LicenseRecipient.describe('receives every alert no routing rule matches'),
  sendTime: LocalTime.default('08:00').describe(
    "scheduled runs send to each recipient once this local time has passed in the recipient's time zone",
  ),
  maxKeysInEmail: z
    .number()
    .int()
    .min(1)
    .max(500)
    .default(50)
    .describe('keys shown in one email (most urgent first); all of them are in its CSV attachment'),
  firstRun: z
    .enum(['summary', 'send-all'])
    .default('summary')
    .describe(
      'what the first run of a product for a recipient does (the state table holds no first-run record for them ' +
        'yet: a new deployment, a new product or recipient): "summary" sends one email per recipient listing the ' +
        'keys already in a stage and records those stages as seen, so later runs alert only on stage changes; ' +
        '"send-all" sends every stage due as alerts. The default is "summary": a registry that has been ' +
        'running for years holds hundreds of keys in a stage on the first day, and a wall of alerts about ' +
        'nothing new is what an operator does not expect (`pulse licenses --dry-run` shows the numbers first)',
    ),
  report: z
    .strictObject({
      title: Text.default('Weekly license registry report'),
      schedule: WeeklySchedule,
      recipients: z.array(LicenseRecipient).min(1).optional().describe('default: the owner'),
      channels: ChannelIds.describe('channels the report is posted to, besides its email'),
    })
    .optional()
    .describe('the weekly license registry report'),
});
