/**
 * `pulse.config.json`: one file for the CLI, the Lambdas and the CDK app. Validated with zod at start (errors name
 * the field's path); `npm run build:schema` writes the JSON Schema editors use (schemas/pulse.config.schema.json).
 */
import * as z from 'zod';
import { unsafeKeyPartReason, unsafeTemplateReason } from './archive-key-parts.ts';
import { ChannelId, ChannelIds, Channels, Notices } from './channels-schema.ts';
import { Email, ProductId, Recipient, Text, WeeklySchedule } from './common-schema.ts';
import { Licenses } from './licenses-schema.ts';
import { UsageAlerts } from './usage-alerts-schema.ts';

export { Email, ProductId, TimeZone, WEEKDAYS } from './common-schema.ts';

/**
 * A config value that becomes part of archive keys: refused at load by the rule the key builders apply again
 * (src/core/archive-key.ts), so a `..` prefix is a named field error before anything runs. Product and digest ids
 * also end up in keys; their patterns (digits; lower-case letters, digits, dashes) are stricter than the rule.
 */
const keyPart = (check: (value: string) => string | undefined) => (value: string, ctx: z.RefinementCtx) => {
  const problem = check(value);
  if (problem) ctx.addIssue({ code: 'custom', message: `${problem}; archive keys must stay inside the archive` });
};
export const DIGEST_SECTIONS = [
  'activity',
  'churn',
  'engagement',
  'topEvents',
  'versions',
  'countries',
  'exceptions',
] as const;

/** Where archive keys start when the config names no `archive.prefix`. */
export const DEFAULT_ARCHIVE_PREFIX = 'pulse';

/**
 * Where a job keeps what it archives: `archive.prefix` (its default from the schema), also for a config without an
 * archive section (the digest's report link, the license report's folder).
 */
export const archivePrefixOf = (config: { archive?: { prefix: string } | undefined }): string =>
  config.archive?.prefix ?? DEFAULT_ARCHIVE_PREFIX;
/** The CloudFormation stack's name when `deploy.stackName` is not set. */
export const DEFAULT_STACK_NAME = 'Pulse';
/**
 * The stack's Reporting Service secret when `deploy.secretName` is not set: one per stack, so two stacks in one
 * account never share (or collide on) it; `pulse/reporting-service` for the default stack name.
 */
export const defaultSecretName = (stackName: string) => `${stackName.toLowerCase()}/reporting-service`;
export const DEFAULT_SECRET_NAME = defaultSecretName(DEFAULT_STACK_NAME);

/** The deployed stack's names: its own, and its credentials secret's (the defaults above when the config is silent). */
export function deployNames(config: { deploy?: { stackName?: string; secretName?: string | undefined } | undefined }) {
  const stackName = config.deploy?.stackName ?? DEFAULT_STACK_NAME;
  return { stackName, secretName: config.deploy?.secretName ?? defaultSecretName(stackName) };
}

export const ARCHIVE_KINDS = ['customEvents', 'exceptions', 'rawEvents', 'clientData'] as const;
/** S3 Object Lock accepts a default retention of at most 100 years. */
export const MAX_RETENTION_DAYS = 36_500;
export const DEFAULT_RETENTION = { days: 365, mode: 'COMPLIANCE' } as const;
export const DEFAULT_KEY_TEMPLATE = '<prefix>/<product>/<kind>/<yyyy>/<mm>/<fileName>';
export const DEFAULT_CLIENT_PROPERTIES = [
  'prodVersion',
  'prodEdition',
  'licenseKey',
  'dateInstalled',
  'dateLastSeen',
  'geography.country',
  'os.version',
] as const;

const Credentials = z
  .discriminatedUnion('source', [
    z
      .strictObject({
        source: z.literal('env'),
        userNameVar: z.string().default('PULSE_USER'),
        passwordVar: z.string().default('PULSE_PASSWORD'),
      })
      .describe('user name and password from environment variables'),
    z
      .strictObject({ source: z.literal('secretsManager'), secretId: z.string().min(1) })
      .describe('a Secrets Manager secret holding JSON {"userName", "password"}; fetched at every sign-in'),
  ])
  .describe('where the Reporting Service credentials come from (never the config file itself)');

const Service = z.strictObject({
  baseUrl: z.url({ protocol: /^https?$/ }).describe('Reporting Service base URL'),
  origin: z.url({ protocol: /^https?$/ }).describe('the dashboard origin the service allows (sent as Origin)'),
  headerPrefix: z
    .string()
    .regex(/^[A-Za-z][A-Za-z0-9]{0,31}$/)
    .default('Svc'),
  credentials: Credentials,
  timeoutMs: z.number().int().positive().default(30_000),
  maxRetries: z.number().int().min(0).max(20).default(4),
  concurrency: z.number().int().min(1).max(32).default(8).describe('report calls in flight at once per run'),
  // The service allows 5 sessions per user; at most 4 leaves one for a person. At least 3: the copy queue's event
  // source needs 2 copiers (SQS's minimum maxConcurrency), the scheduled functions 1 (lib/stacks/session-budget.ts).
  sessionBudget: z
    .number()
    .int()
    .min(3, 'at least 3: 2 archive copiers (the SQS minimum) and 1 scheduled function')
    .max(4, 'at most 4: the service allows 5 sessions per user, and a person must still be able to sign in')
    .default(3)
    .describe('Reporting Service sessions all deployed functions hold at once (the service allows 5 per user)'),
});

const Product = z.strictObject({ id: ProductId, name: Text.optional() });

const Mail = z.strictObject({
  from: Email,
  transport: z
    .discriminatedUnion('kind', [
      z.strictObject({
        kind: z.literal('ses'),
        region: z.string().optional(),
        configurationSet: z
          .string()
          .regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, _ and - (an SES configuration set name), at most 64')
          .optional()
          .describe(
            'SES configuration set every email is sent with, whose bounce, complaint and reject events Pulse reads (the stack sets its own)',
          ),
      }),
      z.strictObject({
        kind: z.literal('smtp'),
        host: z.string().min(1),
        port: z.number().int().min(1).max(65535).default(587),
        secure: z.boolean().default(false),
        credentialsSecretId: z.string().optional().describe('Secrets Manager secret with JSON {"user", "pass"}'),
      }),
    ])
    .default({ kind: 'ses' }),
});

const Digest = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'lower-case letters, digits and dashes'),
  title: Text.default('Weekly product digest'),
  productIds: z.array(ProductId).min(1),
  recipients: z.array(Recipient).default([]).describe('who gets it by email (it needs recipients or channels)'),
  channels: ChannelIds.describe('channels it is posted to (ids from `channels`)'),
  schedule: WeeklySchedule,
  sections: z
    .array(z.enum(DIGEST_SECTIONS))
    .min(1)
    .default([...DIGEST_SECTIONS]),
  thresholds: z
    .strictObject({
      daysUntilDeclaredLost: z.number().int().min(1).max(365).default(30),
      /** A week-over-week change at least this large (in %) is called out. */
      notableChangePercent: z.number().positive().default(10),
      /** The guard holds the digest when a count is this many times above or below its trailing 8-week range. */
      implausibleFactor: z.number().min(1.5).default(5),
    })
    .default({ daysUntilDeclaredLost: 30, notableChangePercent: 10, implausibleFactor: 5 }),
  owner: Email.describe('gets the failure notice when the digest is held'),
});

export const Archive = z.strictObject({
  bucket: z.string().min(3).describe('S3 bucket of the archive (digests and exports)'),
  prefix: z
    .string()
    .superRefine(keyPart(unsafeKeyPartReason))
    .default(DEFAULT_ARCHIVE_PREFIX)
    .describe('first segments of every archive key (printable ASCII; no "." or ".." segments, no leading "/")'),
  publicBaseUrl: z
    .url({ protocol: /^https$/ })
    .optional()
    .describe(
      'https base that serves archive keys to people (e.g. a CloudFront distribution); enables "view in browser"',
    ),
  keyTemplate: z
    .string()
    .regex(/<fileName>/, 'must contain <fileName>')
    .superRefine(keyPart(unsafeTemplateReason))
    .default(DEFAULT_KEY_TEMPLATE)
    .describe('object key of an archived export; placeholders <prefix> <product> <kind> <yyyy> <mm> <dd> <fileName>'),
  kinds: z
    .array(z.enum(ARCHIVE_KINDS))
    .min(1)
    .default([...ARCHIVE_KINDS]),
  clientProperties: z
    .array(z.string().min(1))
    .default([...DEFAULT_CLIENT_PROPERTIES])
    .describe('client properties written to the client data archive (besides clientId)'),
  clientSource: z
    .enum(['export', 'pages'])
    .default('export')
    .describe(
      'where the client data comes from: the client export (exportClientPropertyList, one CSV stream) or the client property list (clientPropertyList, paged)',
    ),
  concurrency: z.number().int().min(1).max(32).default(4).describe('files copied at once'),
  channels: ChannelIds.describe(
    'channels told of every finished run: archive.completed or archive.failed (ids from `channels`; docs/channels/webhook.md)',
  ),
  // Read by the CDK app only (the bucket's Object Lock default retention); the jobs never change a retention.
  retention: z
    .strictObject({
      days: z
        .number()
        .int('whole days')
        .min(1)
        .max(MAX_RETENTION_DAYS, `at most ${MAX_RETENTION_DAYS} (S3 Object Lock's 100 years)`)
        .default(DEFAULT_RETENTION.days)
        .describe('days every archived object version stays immutable (Object Lock default retention)'),
      mode: z
        .enum(['COMPLIANCE', 'GOVERNANCE'])
        .default(DEFAULT_RETENTION.mode)
        .describe(
          'COMPLIANCE: nobody, not even the account root, can delete or shorten the lock; GOVERNANCE (non-production accounts only): principals with s3:BypassGovernanceRetention can',
        ),
    })
    .default({ ...DEFAULT_RETENTION })
    .describe("the archive bucket's Object Lock (cdk deploy only)"),
});

/** What only the CDK app reads: names and subscriptions of the deployed stack (README "Configuration"). */
const Deploy = z.strictObject({
  stackName: z
    .string()
    .regex(
      /^[A-Za-z][A-Za-z0-9-]{0,63}$/,
      'a letter, then letters, digits and - (a CloudFormation stack name), at most 64 characters',
    )
    .default(DEFAULT_STACK_NAME)
    .describe('name of the CloudFormation stack; two Pulse stacks in one account and region need different names'),
  secretName: z
    .string()
    .regex(/^[A-Za-z0-9/_+=.@-]{1,512}$/, 'letters, digits and /_+=.@- (a Secrets Manager name), at most 512')
    // GetSecretValue reads "name-abcdef" as a partial ARN with its random suffix: such a name would not be found.
    .refine((name) => !/-[A-Za-z0-9]{6}$/.test(name), {
      message: 'must not end in "-" and six characters (Secrets Manager would read them as an ARN suffix)',
    })
    .optional()
    .describe(
      'name of the Reporting Service credentials secret the stack creates (default <stackName in lower case>/reporting-service); operators put the credentials there',
    ),
  alarmEmail: Email.optional().describe('subscribed to the alarm topic (confirm the email AWS sends after deploy)'),
  cloudTrailDataEvents: z
    .boolean()
    .default(false)
    .describe(
      'a CloudTrail trail logging every read and write of the archive bucket (S3 data events; charged per event)',
    ),
});

export const PulseConfig = z
  .strictObject({
    $schema: z.string().optional(),
    service: Service,
    products: z.array(Product).min(1),
    mail: Mail,
    archive: Archive.optional(),
    state: z
      .strictObject({ tableName: z.string().min(3) })
      .optional()
      .describe('DynamoDB state table (the ledger)'),
    digests: z.array(Digest).default([]),
    licenses: Licenses.optional().describe('license key alerts, the weekly registry report and registry sync'),
    channels: Channels.describe('Slack, Teams and webhook channels (docs/channels.md)'),
    notices: Notices.optional(),
    usageAlerts: UsageAlerts.optional(),
    deploy: Deploy.optional().describe('settings of the deployed stack (cdk synth / deploy only)'),
  })
  .superRefine((cfg, ctx) => {
    const known = new Set<string>();
    cfg.products.forEach((p, i) => {
      // One entry per product: a second would give the same product two names (and the local emulator one of them).
      if (known.has(p.id))
        ctx.addIssue({ code: 'custom', path: ['products', i, 'id'], message: `duplicate product id ${p.id}` });
      known.add(p.id);
    });
    channelRefs(cfg, ctx);
    const seen = new Set<string>();
    cfg.digests.forEach((d, i) => {
      if (d.recipients.length === 0 && d.channels.length === 0)
        ctx.addIssue({ code: 'custom', path: ['digests', i, 'recipients'], message: 'needs recipients or channels' });
      if (seen.has(d.id))
        ctx.addIssue({ code: 'custom', path: ['digests', i, 'id'], message: `duplicate digest id ${d.id}` });
      seen.add(d.id);
      d.productIds.forEach((id, j) => {
        if (!known.has(id))
          ctx.addIssue({ code: 'custom', path: ['digests', i, 'productIds', j], message: `${id} is not in products` });
      });
    });
    const licenseProducts: [(string | number)[], string][] = [
      ...(cfg.licenses?.productIds ?? []).map((id, j): [(string | number)[], string] => [['productIds', j], id]),
      ...(cfg.licenses?.routing ?? []).flatMap((r, i) =>
        (r.productIds ?? []).map((id, j): [(string | number)[], string] => [['routing', i, 'productIds', j], id]),
      ),
    ];
    for (const [path, id] of (cfg.usageAlerts?.rules ?? []).flatMap((r, i) =>
      r.productIds.map((id, j): [(string | number)[], string] => [['usageAlerts', 'rules', i, 'productIds', j], id]),
    )) {
      if (!known.has(id)) ctx.addIssue({ code: 'custom', path, message: `${id} is not in products` });
    }
    for (const [path, id] of licenseProducts) {
      if (!known.has(id))
        ctx.addIssue({ code: 'custom', path: ['licenses', ...path], message: `${id} is not in products` });
    }
  });

/** Channel ids are unique, and every channel a section names is configured. */
function channelRefs(
  cfg: {
    channels: { id: string }[];
    digests: { channels: string[] }[];
    licenses?: { routing: { channels: string[] }[]; report?: { channels: string[] } | undefined } | undefined;
    notices?: { channels: string[] } | undefined;
    archive?: { channels: string[] } | undefined;
    usageAlerts?: { rules: { channels: string[] }[] } | undefined;
  },
  ctx: z.RefinementCtx,
): void {
  const ids = new Set<string>();
  cfg.channels.forEach((c, i) => {
    if (ids.has(c.id))
      ctx.addIssue({ code: 'custom', path: ['channels', i, 'id'], message: `duplicate channel id ${c.id}` });
    ids.add(c.id);
  });
  const refs: [(string | number)[], string[]][] = [
    ...cfg.digests.map((d, i): [(string | number)[], string[]] => [['digests', i, 'channels'], d.channels]),
    ...(cfg.licenses?.routing ?? []).map((r, i): [(string | number)[], string[]] => [
      ['licenses', 'routing', i, 'channels'],
      r.channels,
    ]),
    [['licenses', 'report', 'channels'], cfg.licenses?.report?.channels ?? []],
    [['notices', 'channels'], cfg.notices?.channels ?? []],
    [['archive', 'channels'], cfg.archive?.channels ?? []],
    ...(cfg.usageAlerts?.rules ?? []).map((r, i): [(string | number)[], string[]] => [
      ['usageAlerts', 'rules', i, 'channels'],
      r.channels,
    ]),
  ];
  for (const [path, list] of refs) {
    list.forEach((id, j) => {
      // An id the pattern refused has its error already.
      if (!ids.has(id) && ChannelId.safeParse(id).success)
        ctx.addIssue({ code: 'custom', path: [...path, j], message: `${id} is not in channels` });
    });
  }
}

export type PulseConfig = z.output<typeof PulseConfig>;
export type { ChannelConfig } from './channels-schema.ts';
export type DigestConfig = PulseConfig['digests'][number];
export type DigestSection = (typeof DIGEST_SECTIONS)[number];
export type ArchiveKind = (typeof ARCHIVE_KINDS)[number];
export type ArchiveConfig = NonNullable<PulseConfig['archive']>;
export type LicensesConfig = NonNullable<PulseConfig['licenses']>;
export type DeployConfig = NonNullable<PulseConfig['deploy']>;
