/**
 * The `usageAlerts` section: rules on the service's own figures (docs/usage-alerts.md). A rule names its products,
 * a metric the interface answers per period, optional filters and one segment level, a period, a condition with a
 * minimum volume and a settle delay, and where its alerts go. The job is src/usage-alerts/.
 */
import * as z from 'zod';
import { ChannelIds } from './channels-schema.ts';
import { Email, ProductId, Recipient, Text, TimeZone } from './common-schema.ts';

/** An event by category and name, each matched as a string (default) or an ECMAScript regex (unanchored). */
const EventSelector = z.strictObject({
  category: z.string().nullable().describe("the event's category; null matches events without one"),
  name: z.string().min(1).describe("the event's name"),
  match: z.enum(['string', 'regex']).default('string').describe('how category and name are matched'),
});

/** Exceptions by their `exception.type`, matched as a string (default) or an ECMAScript regex (unanchored). */
const ExceptionSelector = z.strictObject({
  type: z.string().min(1).describe("the exception's type, e.g. java.lang.NullPointerException"),
  match: z.enum(['string', 'regex']).default('string').describe('how the type is matched'),
});

export const CLIENT_STATUSES = ['active', 'new', 'lost'] as const;

/**
 * The `usageDistribution` bins of sessions and of runtime in the range, in order, as docs/interface.md "Usage
 * distribution" lists them: an engagement rule's `atLeast` names one of them.
 */
export const ENGAGEMENT_BINS = {
  sessions: ['≤ 1', '2', '3', '4 - 5', '6 - 8', '9 - 12', '13 - 20', '≥ 21'],
  runtime: ['≤ 0:05', '0:06 - 0:15', '0:16 - 0:30', '0:31 - 1:00', '1:01 - 2:00', '2:01 - 5:00', '≥ 5:01'],
} as const;

const KINDS = 'the metric: clients, eventCount, segmentShare, exceptionCount or engagement';

const Metric = z
  .discriminatedUnion('kind', [
    z.strictObject({
      kind: z.literal('clients').describe(KINDS),
      status: z.enum(CLIENT_STATUSES).describe('active, new or lost clients (dateRangeReport)'),
    }),
    z.strictObject({
      kind: z.literal('eventCount').describe(KINDS),
      event: EventSelector.describe('occurrences of this tracked event (basicTimeline)'),
    }),
    z.strictObject({
      kind: z.literal('segmentShare').describe(KINDS),
      property: z.string().min(1).describe('a property from productProperties, e.g. prodVersion'),
      value: z.string().min(1).describe('its value whose share of active clients is judged, e.g. 5.2'),
    }),
    z.strictObject({
      kind: z.literal('exceptionCount').describe(KINDS),
      exception: ExceptionSelector.describe('occurrences of exceptions of this type (the exception files)'),
    }),
    z.strictObject({
      kind: z.literal('engagement').describe(KINDS),
      measure: z
        .enum(['sessions', 'runtime'])
        .describe("which histogram of usageDistribution: a client's sessions or runtime in the period"),
      atLeast: z
        .string()
        .min(1)
        .describe('the lowest bin counted, a label of that histogram, e.g. "6 - 8" or "≥ 5:01"'),
      as: z
        .enum(['clients', 'share'])
        .describe('the clients in that bin or above, or their share of active clients (%)'),
    }),
  ])
  .describe(
    'what is judged: clients, a tracked event’s count, a property value’s share of active clients (%), an exception type’s count, or the clients with at least so many sessions or so much runtime',
  );

const Direction = z.enum(['up', 'down', 'either']).default('either').describe('which way fires');

const Condition = z
  .discriminatedUnion('kind', [
    z
      .strictObject({
        kind: z.literal('threshold').describe('the condition: threshold, change or deviation'),
        above: z.number().optional().describe('fires when the figure is above this'),
        below: z.number().optional().describe('fires when the figure is below this'),
      })
      .refine((c) => c.above !== undefined || c.below !== undefined, { message: 'needs above or below' }),
    z.strictObject({
      kind: z.literal('change').describe('the condition: threshold, change or deviation'),
      percent: z
        .number()
        .positive()
        .describe('fires when the figure moved at least this many % from the period before'),
      direction: Direction,
    }),
    z.strictObject({
      kind: z.literal('deviation').describe('the condition: threshold, change or deviation'),
      baselinePeriods: z
        .number()
        .int()
        .min(4, 'at least 4: a median of fewer says little')
        .max(52)
        .default(8)
        .describe('the trailing periods whose median and MAD are the baseline'),
      k: z.number().positive().default(3).describe('fires outside median ± k × MAD (scaled to σ: × 1.4826)'),
      direction: Direction,
    }),
  ])
  .describe('threshold, change against the period before, or deviation from the trailing baseline');

export const RuleId = z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'lower-case letters, digits and dashes');

export const UsageAlertRule = z
  .strictObject({
    id: RuleId.describe('names the rule in its alerts, its ledger keys and `--rule`'),
    description: Text.optional().describe('what the rule watches, in the alert'),
    productIds: z.array(ProductId).min(1).describe('the products judged, each on its own'),
    metric: Metric,
    filters: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('globalFilters as the interface takes them (docs/interface.md "Filters"), e.g. {"os": …}'),
    segment: z
      .strictObject({
        property: z
          .string()
          .min(1)
          .describe('one alert state per value of this property (prodVersion, geography.country…)'),
        limit: z.number().int().min(1).max(50).default(10).describe('the most active values judged, at most'),
      })
      .optional()
      .describe('judge each value of one property on its own (the clients metric only)'),
    period: z
      .strictObject({
        unit: z.enum(['day', 'week']).describe("the service's UTC day, or ISO week"),
        timeZone: TimeZone.default('UTC').describe('how dates and times show in the alert'),
      })
      .describe('the period each figure covers'),
    condition: Condition,
    minVolume: z
      .number()
      .min(0)
      .default(0)
      .describe(
        'no firing below this volume (clients, events, exceptions, or the active clients a share is of) in the judged period',
      ),
    settleHours: z
      .number()
      .int()
      .min(0)
      .max(24 * 14)
      .default(24)
      .describe("a period is judged only this long after it ended: the service's data for it has arrived"),
    repeatEvery: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('periods after which a rule still firing is said again (default: said once, and when it resolves)'),
    daysUntilDeclaredLost: z
      .number()
      .int()
      .min(1)
      .max(365)
      .default(30)
      .describe('lost clients: as the digest counts them'),
    recipients: z
      .array(Recipient)
      .default([])
      .describe('who gets its alerts by email (it needs recipients or channels)'),
    channels: ChannelIds.describe('channels its alerts are posted to (ids from `channels`)'),
    owner: Email.describe('who owns the rule: told when it cannot be judged'),
  })
  // What the interface can answer: tracked events come unfiltered and unsegmented (basicTimeline), exceptions from
  // files that hold every line, a share is of one value already.
  .superRefine((rule, ctx) => {
    const m = rule.metric;
    if (m.kind === 'exceptionCount' && m.exception.match === 'regex') {
      const problem = regexProblem(m.exception.type);
      if (problem)
        ctx.addIssue({ code: 'custom', path: ['metric', 'exception', 'type'], message: `not a regex: ${problem}` });
    }
    if (m.kind === 'engagement' && !(ENGAGEMENT_BINS[m.measure] as readonly string[]).includes(m.atLeast))
      ctx.addIssue({
        code: 'custom',
        path: ['metric', 'atLeast'],
        message: `not a ${m.measure} bin: "${m.atLeast}" (one of ${ENGAGEMENT_BINS[m.measure].map((b) => `"${b}"`).join(', ')})`,
      });
    if (rule.segment && rule.metric.kind !== 'clients')
      ctx.addIssue({
        code: 'custom',
        path: ['segment'],
        message: `not with the ${rule.metric.kind} metric (clients only)`,
      });
    if (rule.filters && rule.metric.kind === 'eventCount')
      ctx.addIssue({
        code: 'custom',
        path: ['filters'],
        message: 'not with an eventCount metric (basicTimeline takes none)',
      });
    if (rule.filters && rule.metric.kind === 'exceptionCount')
      ctx.addIssue({
        code: 'custom',
        path: ['filters'],
        message: 'not with an exceptionCount metric (the exception files are counted whole)',
      });
    if (rule.recipients.length === 0 && rule.channels.length === 0)
      ctx.addIssue({ code: 'custom', path: ['recipients'], message: 'needs recipients or channels' });
  });

function regexProblem(source: string): string | undefined {
  try {
    new RegExp(source);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

export const UsageAlerts = z
  .strictObject({
    rules: z
      .array(UsageAlertRule)
      .min(1)
      .superRefine((rules, ctx) => {
        const seen = new Set<string>();
        rules.forEach((r, i) => {
          if (seen.has(r.id)) ctx.addIssue({ code: 'custom', path: [i, 'id'], message: `duplicate rule id ${r.id}` });
          seen.add(r.id);
        });
      })
      .describe('the rules, each judged on its own (ids unique)'),
  })
  .describe('alerts on usage figures: thresholds, changes and deviations (docs/usage-alerts.md)');

export type UsageAlertRule = z.output<typeof UsageAlertRule>;
export type UsageAlertsConfig = z.output<typeof UsageAlerts>;
export type UsageMetric = UsageAlertRule['metric'];
export type UsageCondition = UsageAlertRule['condition'];
