/**
 * `npm run build:docs`: writes docs/configuration.md from the config schema, so the page cannot drift from what the
 * loader accepts. It walks the JSON Schema that src/config/json-schema.ts makes of the zod schema (`PulseConfig`) and
 * writes one table per top-level section: every field with its path, type, default, whether it is required, and its
 * description. Descriptions come from the schema's `.describe()`; a field the schema leaves undescribed takes its
 * words from NOTES below (a field with neither, or a note for a field the schema no longer has, fails the build).
 * The intro above the tables is hand-written, here.
 *
 * `npm run build:docs -- --check` (and test/docs/config-docs.test.ts) exits 1, naming the first differing line, when
 * the committed page is not what this script generates. `--file FILE` writes or checks FILE instead.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { configJsonSchema } from '../src/config/json-schema.ts';

export const CONFIG_DOCS = fileURLToPath(new URL('../docs/configuration.md', import.meta.url));

const INTRO = `# Configuration: \`pulse.config.json\`

For anyone who writes or reviews a Pulse config: the one file the CLI, the Lambda functions and the CDK app read,
with every field, its type, its default and what it does. This page is generated from the config schema by
\`npm run build:docs\` (scripts/build-config-docs.ts); a test fails while it differs from what the schema says, so
edit the schema's descriptions (src/config/), not this page.

- **Where it is read from:** \`--config FILE\`, else \`$PULSE_CONFIG\`, else \`./pulse.config.json\`. \`--local\` runs
  use \`examples/pulse.config.json\` unless \`--config\` is given. The CDK app never picks one by itself
  (\`npx cdk deploy -c config=FILE\`, see [operations](operations.md#3-deploy)). \`examples/pulse.production.json\` is the
  example production config.
- **Checked at start:** plain JSON (no comments; a leading UTF-8 byte order mark is accepted) of at most 1 MiB.
  Every field is validated before anything runs, and an invalid one fails with its path
  (\`digests[0].recipients[1].timeZone: unknown IANA time zone\`). Unknown fields are errors too.
- **Editors** get completion from \`schemas/pulse.config.schema.json\` (point the config's \`"$schema"\` at it;
  regenerate it with \`npm run build:schema\`).
- **Credentials never live in the file:** \`"source": "env"\` reads \`$PULSE_USER\`/\`$PULSE_PASSWORD\` (the names are
  configurable), \`"source": "secretsManager"\` reads a secret at every sign-in. In AWS the stack's own secret is
  always used and \`service.credentials\` is ignored ([operations](operations.md#what-the-stack-takes-from-the-config)).
- **What each section drives:** \`digests\` [the weekly digest](digest.md), \`archive\` [the export archive](archive.md),
  \`licenses\` [license alerts, the registry report and sync](licenses.md), \`deploy\` and \`archive.retention\` the
  [stack](operations.md#what-the-stack-takes-from-the-config).

A minimal config is in the [README](../README.md#configuration-pulseconfigjson). Below, each field is listed with
its path, whether it is required, its type and its default, then what it does. **Required** is relative to the
field's parent: a required field must be there when its section is. A path with \`[]\` is a field of every element
of that list.`;

/** Words for the fields whose schema has no description of its own (appended to a generic one such as "e-mail address"). */
const NOTES: Record<string, string> = {
  $schema: 'the JSON Schema editors validate against (e.g. schemas/pulse.config.schema.json); Pulse ignores it',
  service: 'the Reporting Service Pulse calls',
  'service.headerPrefix': "prefix of the service's header and cookie names (`Svc-Csrf`, `Svc-Session-Token`, …)",
  'service.credentials.source': 'which kind of credentials source',
  'service.credentials.userNameVar': 'environment variable holding the user name',
  'service.credentials.passwordVar': 'environment variable holding the password',
  'service.credentials.secretId': 'name or ARN of the secret',
  'channels[].secret.source': 'which kind of secret source',
  'channels[].secret.var': 'environment variable holding the secret (JSON, or a Slack or Teams URL alone)',
  'channels[].secret.secretId':
    'name or ARN of the secret (JSON `{"url"}`, or `{"url", "signingSecret"}` for a webhook)',
  'service.timeoutMs': 'time limit of one attempt of a call, in ms (failed attempts are retried)',
  'service.maxRetries':
    'retries after the first attempt (429 honours Retry-After; 5xx and network errors back off exponentially)',
  products: 'the products Pulse works on; digests and license rules name them by id, the archive copies each one',
  'products[].name': 'display name in emails and reports (without one, the product is named by its id)',
  mail: 'how Pulse sends email',
  'mail.from': 'the sender of every email',
  'mail.transport': 'Amazon SES (`{ "kind": "ses" }`) or an SMTP server',
  'mail.transport.kind': 'which transport',
  'mail.transport.region': 'SES region (default: the region the functions run in)',
  'mail.transport.host': 'SMTP server host',
  'mail.transport.port': 'SMTP server port',
  'mail.transport.secure': 'TLS from the first byte (e.g. port 465); `false` upgrades with STARTTLS when offered',
  archive: 'the export archive in S3, and where digests and license reports are archived',
  'archive.prefix': 'digests, exports, manifests and coverage reports are all under it',
  'archive.keyTemplate': '`<kind>` is `clientData` for client data files',
  'archive.concurrency': 'in AWS the number of copiers comes from `service.sessionBudget` instead',
  'archive.kinds': 'export kinds archived (`clientData`: the daily client data file)',
  'state.tableName': "DynamoDB table name (in AWS the stack's table replaces it)",
  digests: 'the weekly executive digests',
  'digests[].id': 'names the digest in commands (`--digest`), the ledger and archive keys',
  'digests[].title': 'heading and subject of the email',
  'digests[].productIds': 'products in this digest, each one in `products`',
  'digests[].recipients[].name': 'display name',
  'digests[].schedule':
    'when the digest of the ISO week that just ended is due; the week ends in this time zone, and each recipient gets it once their own send time has passed',
  'digests[].schedule.day': 'day of the week',
  'digests[].sections':
    'what the digest shows and fetches (shown in this canonical order whatever the order given): `activity` new, active and lost clients; `churn` lost-client histograms; `engagement` usage distribution; `topEvents`; `versions`; `countries`; `exceptions` the most frequent exceptions',
  'digests[].thresholds': "the digest's judgement calls",
  'digests[].thresholds.daysUntilDeclaredLost': 'a client not seen for this many days counts as lost',
  'digests[].thresholds.notableChangePercent': 'a week-over-week change at least this large (in %) is called out',
  'digests[].thresholds.implausibleFactor':
    'the guard holds the digest when a count is this many times above or below its trailing 8-week range',
  'licenses.stages': 'the expiry stages a key is alerted at',
  'licenses.inUse': 'when a blocked key counts as in use',
  'licenses.usage': 'the usage figures and labels of an alerted key',
  'licenses.routing[].recipients[].name': 'display name',
  'licenses.owner.name': 'display name',
  'licenses.report.title': 'heading and subject of the report email',
  'licenses.report.schedule': 'when the report of the ISO week that just ended is due',
  'licenses.report.schedule.day': 'day of the week',
  'licenses.report.recipients[].name': 'display name',
  'usageAlerts.rules[].recipients[].name': 'display name',
};

/** The topic page that explains a section, linked below its heading. */
const SECTION_PAGES: Record<string, string> = {
  service:
    '[the client](../src/client/README.md) and, for the session budget in AWS, [aws.md](aws.md#sessions-in-aws-the-session-budget)',
  mail: '[operations](operations.md#6-email-verify-the-sender-and-leave-the-ses-sandbox)',
  archive: '[the export archive](archive.md)',
  digests: '[the weekly digest](digest.md)',
  usageAlerts: '[usage alerts](usage-alerts.md)',
  licenses: '[license alerts, report and sync](licenses.md)',
  deploy: '[operations](operations.md#what-the-stack-takes-from-the-config)',
};

type Schema = {
  type?: string;
  description?: string;
  default?: unknown;
  const?: unknown;
  enum?: unknown[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minItems?: number;
  maxItems?: number;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  oneOf?: Schema[];
};

interface Row {
  path: string;
  type: string;
  default: string;
  required: boolean;
  description: string;
}

const code = (text: string) => `\`${text}\``;
const json = (value: unknown) => code(JSON.stringify(value).replace(/,/g, ', ').replace(/":/g, '": '));

/** A number's limits: ` 1–32`, ` ≥ 0`, ` > 0` (the largest safe integer, zod's default maximum, is no limit). */
function range(s: Schema): string {
  const top = s.maximum !== undefined && s.maximum < Number.MAX_SAFE_INTEGER ? s.maximum : undefined;
  if (s.exclusiveMinimum !== undefined) return ` > ${s.exclusiveMinimum}`;
  if (s.minimum !== undefined && top !== undefined) return ` ${s.minimum}–${top}`;
  if (s.minimum !== undefined) return ` ≥ ${s.minimum}`;
  if (top !== undefined) return ` ≤ ${top}`;
  return '';
}

/** A string's limits: length and pattern (anchored: "matching"; else "containing"). */
function stringLimits(s: Schema): string[] {
  const limits: string[] = [];
  if (s.minLength !== undefined && s.maxLength !== undefined) limits.push(`${s.minLength}–${s.maxLength} characters`);
  else if (s.maxLength !== undefined) limits.push(`at most ${s.maxLength} characters`);
  else if (s.minLength !== undefined && s.minLength > 1) limits.push(`at least ${s.minLength} characters`);
  else if (s.minLength === 1) limits.push('not empty');
  if (s.pattern) limits.push(`${s.pattern.startsWith('^') ? 'matching' : 'containing'} ${code(s.pattern)}`);
  return limits;
}

/** The field's type with its limits, in words; `plural` for a list's elements. */
function typeOf(s: Schema, plural = false): string {
  const many = (one: string) => (plural ? `${one}s` : one);
  if (s.const !== undefined) return json(s.const);
  if (s.enum) return `${plural ? 'each ' : ''}one of ${s.enum.map(json).join(', ')}`;
  if (s.oneOf) return `one of: ${s.oneOf.map((v) => variantName(v)).join(', ')}`;
  // A nullable field (`["string", "null"]`): its type, or null.
  if (Array.isArray(s.type) && s.type.length === 2 && s.type.includes('null'))
    return `${typeOf({ ...s, type: s.type.find((t) => t !== 'null') }, plural)} or null`;
  switch (s.type) {
    case 'string': {
      if (s.format === 'email') return many('email address');
      if (s.format === 'uri') return many('URL');
      const limits = stringLimits(s);
      return limits.length > 0 ? `${many('string')} (${limits.join(', ')})` : many('string');
    }
    case 'integer':
    case 'number':
      return `${many(s.type)}${range(s)}`;
    case 'boolean':
    case 'object':
      return many(s.type);
    case 'array': {
      const count =
        s.minItems !== undefined && s.maxItems !== undefined
          ? ` (${s.minItems}–${s.maxItems})`
          : s.minItems !== undefined
            ? ` (at least ${s.minItems})`
            : s.maxItems !== undefined
              ? ` (at most ${s.maxItems})`
              : '';
      return `list${count} of ${s.items ? typeOf(s.items, true) : 'values'}`;
    }
    default:
      throw new Error(`a field of type ${JSON.stringify(s.type)}: extend build-config-docs.ts`);
  }
}

/** A discriminated union's variant, named by its constant field: `"kind": "ses"`. */
function variantName(v: Schema): string {
  const [key, prop] = Object.entries(v.properties ?? {}).find(([, p]) => p.const !== undefined) ?? [];
  if (!key || !prop) throw new Error('a oneOf variant without a constant field: extend build-config-docs.ts');
  return code(`"${key}": ${JSON.stringify(prop.const)}`);
}

/** Angle-bracket placeholders (`<prefix>`) would be read as HTML by a Markdown renderer: set them as code. */
const words = (text: string) =>
  text.replace(/(^|[^`])(<[A-Za-z][^<>]*>[^\s;,)]*)/g, (_, before: string, tag: string) => `${before}${code(tag)}`);

function describe(path: string, s: Schema, condition: string | undefined): string {
  const note = NOTES[path];
  const text = [s.description, note].filter(Boolean).join('; ');
  if (!text) throw new Error(`${path} has no description: add .describe() in the schema or a note in NOTES`);
  return words(condition ? `${condition}: ${text}` : text);
}

function walk(s: Schema, path: string, required: boolean, rows: Row[], condition?: string, ownRow = true): void {
  if (ownRow && path !== '') {
    rows.push({
      path,
      type: typeOf(s),
      default: s.default === undefined ? '' : json(s.default),
      required,
      description: describe(path, s, condition),
    });
  }
  const under = (key: string) => (path === '' ? key : `${path}.${key}`);
  if (s.properties) {
    for (const [key, prop] of Object.entries(s.properties))
      walk(prop, under(key), s.required?.includes(key) ?? false, rows, condition);
  }
  // A list of objects: its elements' fields, as `path[].field` (the element itself is the list's row).
  if (s.items?.type === 'object') walk(s.items, `${path}[]`, true, rows, condition, false);
  if (s.oneOf) {
    const seen = new Set<string>();
    for (const variant of s.oneOf) {
      const name = variantName(variant);
      for (const [key, prop] of Object.entries(variant.properties ?? {})) {
        if (prop.const !== undefined) {
          if (!seen.has(key)) {
            seen.add(key);
            const values = s.oneOf.map((v) => v.properties?.[key]?.const);
            walk({ ...prop, const: undefined, enum: values }, under(key), true, rows);
          }
          continue;
        }
        walk(prop, under(key), variant.required?.includes(key) ?? false, rows, `with ${name}`);
      }
    }
  }
}

/** docs/configuration.md as the schema says it should be. */
export function configDocs(): string {
  const schema = configJsonSchema() as Schema;
  const rows: Row[] = [];
  walk(schema, '', true, rows);
  const known = new Set(rows.map((r) => r.path));
  const stale = Object.keys(NOTES).filter((p) => !known.has(p));
  if (stale.length > 0) throw new Error(`NOTES name fields the schema does not have: ${stale.join(', ')}`);

  const sections: string[] = [INTRO];
  for (const key of Object.keys(schema.properties ?? {})) {
    const [own, ...fields] = rows.filter(
      (r) => r.path === key || r.path.startsWith(`${key}.`) || r.path.startsWith(`${key}[]`),
    );
    const about = [
      `**${own!.required ? 'Required' : 'Optional'}**, ${own!.type}${own!.default ? `, default ${own!.default}` : ''}.`,
      `${own!.description[0]!.toUpperCase()}${own!.description.slice(1)}.`,
      ...(SECTION_PAGES[key] ? [`See ${SECTION_PAGES[key]}.`] : []),
    ];
    const list = fields.map((r) => {
      const facts = [r.required ? '**required**' : 'optional', r.type, ...(r.default ? [`default ${r.default}`] : [])];
      return `- ${code(r.path)}: ${facts.join(', ')}. ${r.description[0]!.toUpperCase()}${r.description.slice(1)}.`;
    });
    sections.push([`## ${code(key)}`, '', about.join(' '), ...(fields.length > 0 ? ['', ...list] : [])].join('\n'));
  }
  return `${sections.join('\n\n')}\n`;
}

/** What differs between the committed page and the generated one, naming the first differing line; empty if none. */
export function configDocsDifference(committed: string | undefined, generated = configDocs()): string {
  if (committed === undefined) return 'docs/configuration.md is missing';
  if (committed === generated) return '';
  const a = committed.split('\n');
  const b = generated.split('\n');
  const line = a.findIndex((text, i) => text !== b[i]);
  const at = line === -1 ? a.length : line;
  return [
    `docs/configuration.md differs from what scripts/build-config-docs.ts generates, first at line ${at + 1}:`,
    `  committed: ${a[at] ?? '(end of file)'}`,
    `  generated: ${b[at] ?? '(end of file)'}`,
  ].join('\n');
}

if (import.meta.main) {
  // `--file FILE` writes or checks another file than docs/configuration.md (the tests' copy).
  const at = process.argv.indexOf('--file');
  const file = at > 0 ? process.argv[at + 1]! : CONFIG_DOCS;
  try {
    if (process.argv.includes('--check')) {
      let committed: string | undefined;
      try {
        committed = readFileSync(file, 'utf8');
      } catch {
        committed = undefined;
      }
      const difference = configDocsDifference(committed);
      if (difference) {
        process.stderr.write(`${difference}\nrun \`npm run build:docs\` and commit docs/configuration.md\n`);
        process.exitCode = 1;
      }
    } else {
      writeFileSync(file, configDocs());
      process.stdout.write(`wrote ${file}\n`);
    }
  } catch (error) {
    process.stderr.write(`build:docs failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
