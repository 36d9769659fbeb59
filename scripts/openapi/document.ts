/**
 * The OpenAPI 3.1 document of the Reporting Service, built from the definitions the client uses: the operation table
 * (src/api/operations.ts), the request schemas (src/client/families/request-bodies.ts, request-types.ts) and the
 * response schemas (the client's RESPONSE_SCHEMAS), converted by zod's own `z.toJSONSchema`. Examples are added by
 * scripts/openapi/examples.ts; scripts/build-openapi.ts writes the result to src/api/openapi.json.
 */
import { readFileSync } from 'node:fs';
import * as z from 'zod';
import { OPERATIONS, type OperationDef } from '../../src/api/operations.ts';
import { RESPONSE_SCHEMAS } from '../../src/client/client.ts';
import * as auth from '../../src/client/families/auth.ts';
import * as churn from '../../src/client/families/churn.ts';
import * as clientProfile from '../../src/client/families/client-profile.ts';
import * as engagement from '../../src/client/families/engagement.ts';
import * as eventManagement from '../../src/client/families/event-management.ts';
import * as eventReports from '../../src/client/families/event-reports.ts';
import * as files from '../../src/client/families/files.ts';
import * as genericReports from '../../src/client/families/generic-reports.ts';
import * as licenseKeys from '../../src/client/families/license-keys.ts';
import * as lifetimeReports from '../../src/client/families/lifetime-reports.ts';
import * as metadata from '../../src/client/families/metadata.ts';
import * as requestBodies from '../../src/client/families/request-bodies.ts';
import { REQUEST_SCHEMAS, ServiceErrorBody } from '../../src/client/families/request-bodies.ts';
import * as requestTypes from '../../src/client/families/request-types.ts';
import { shapeChoiceMembers } from '../../src/client/families/shape-choice.ts';

/** The vendor prefix of header and cookie names as the document shows it (configurable: `headerPrefix`). */
export const PREFIX = 'Svc';
type Json = Record<string, unknown>;

/** Modules whose exported schemas become named components (named as in the code). */
const NAMED_SCHEMA_MODULES = [
  requestTypes,
  requestBodies,
  auth,
  metadata,
  eventManagement,
  genericReports,
  engagement,
  lifetimeReports,
  eventReports,
  churn,
  licenseKeys,
  files,
  clientProfile,
];
/** Plain scalars (a date string, a count) read better inline than as references. */
const INLINE_TYPES = new Set(['string', 'number', 'boolean', 'literal', 'null']);

const upperFirst = (s: string) => s[0]!.toUpperCase() + s.slice(1);

/** Every request, response and error schema, each under its code name (or `<OperationId>Request`/`Response`). */
function schemaRegistry() {
  const registry = z.registry<{ id: string }>();
  const name = (schema: z.ZodType, id: string) => {
    if (!registry.has(schema)) registry.add(schema, { id });
  };
  // Sorted: module namespaces list their exports in different orders under Node and under vitest, and a schema
  // exported under two names takes the first.
  for (const mod of NAMED_SCHEMA_MODULES)
    for (const [key, value] of Object.entries(mod).sort(([a], [b]) => (a < b ? -1 : 1)))
      if (value instanceof z.ZodType && !INLINE_TYPES.has(value._zod.def.type)) name(value, key);
  for (const [id, schema] of Object.entries(REQUEST_SCHEMAS)) name(schema, `${upperFirst(id)}Request`);
  for (const [id, schema] of Object.entries(RESPONSE_SCHEMAS))
    if (schema instanceof z.ZodType) name(schema, `${upperFirst(id)}Response`);
  return registry;
}

const ref = (id: string) => `#/components/schemas/${id}`;

/** The JSON Schemas of every registered schema, as the wire carries them (zod's input side). */
function componentSchemas(registry: ReturnType<typeof schemaRegistry>): {
  schemas: Record<string, Json>;
  ids: Map<z.ZodType, string>;
} {
  const ids = new Map<z.ZodType, string>();
  for (const mod of NAMED_SCHEMA_MODULES)
    for (const value of Object.values(mod))
      if (value instanceof z.ZodType && registry.has(value)) ids.set(value, registry.get(value)!.id);
  for (const s of [...Object.values(REQUEST_SCHEMAS), ...Object.values(RESPONSE_SCHEMAS), ServiceErrorBody])
    if (s instanceof z.ZodType && registry.has(s)) ids.set(s, registry.get(s)!.id);
  const out = z.toJSONSchema(registry, {
    io: 'input',
    uri: ref,
    override: (ctx) => {
      // A shapeChoice is a transform over `unknown` to zod; on the wire it is any of its members.
      const choice = shapeChoiceMembers.get(ctx.zodSchema as unknown as z.ZodType);
      if (!choice) return;
      for (const key of Object.keys(ctx.jsonSchema)) delete (ctx.jsonSchema as Json)[key];
      ctx.jsonSchema.anyOf = choice.map((m) => {
        const id = registry.get(m)?.id;
        if (!id) throw new Error('a shapeChoice member must be an exported schema (it becomes a component)');
        return { $ref: ref(id) };
      });
    },
  });
  const schemas: Record<string, Json> = {};
  for (const [id, schema] of Object.entries(out.schemas).sort(([a], [b]) => (a < b ? -1 : 1))) {
    // Components live inside the document: no `$schema` or `$id` of their own (refs resolve against the document).
    const { $schema: _s, $id: _i, ...rest } = schema as Json;
    schemas[id] = rest;
  }
  return { schemas, ids };
}

/**
 * Each operation's purpose from the operations table of docs/interface.md (`| \`id\` | method | path | purpose |`),
 * the one place it is written.
 */
function purposes(): Map<string, string> {
  const page = readFileSync(new URL('../../docs/interface.md', import.meta.url), 'utf8');
  const out = new Map<string, string>();
  for (const m of page.matchAll(/^\| `(\w+)` \| [A-Z]+ \| `[^`]+` \| ([^|]+) \|/gm)) out.set(m[1]!, m[2]!.trim());
  for (const op of OPERATIONS)
    if (!out.has(op.id)) throw new Error(`docs/interface.md "Operations" has no row for ${op.id}`);
  return out;
}

/** Components that nothing in the document refers to (pieces that other schemas spread inline) are dropped. */
function pruneUnused(doc: Json): void {
  const schemas = (doc.components as { schemas: Json }).schemas;
  for (;;) {
    const text = JSON.stringify({ ...doc, components: { ...(doc.components as Json), schemas: {} } });
    const refs = JSON.stringify(schemas);
    const unused = Object.keys(schemas).filter((id) => {
      const needle = `"${ref(id)}"`;
      return !text.includes(needle) && !refs.replace(`"${id}":`, '').includes(needle);
    });
    if (unused.length === 0) return;
    for (const id of unused) delete schemas[id];
  }
}

const PUBLIC_OPERATIONS = new Set(['requestCsrf', 'signIn']);
const NO_CONTENT = new Set(['requestCsrf', 'logout']);

function parameters(op: OperationDef, withProduct: boolean): Json[] {
  const list: Json[] = [
    { $ref: '#/components/parameters/Origin' },
    { $ref: '#/components/parameters/Client' },
    { $ref: '#/components/parameters/ClientVersion' },
  ];
  if (!PUBLIC_OPERATIONS.has(op.id)) list.push({ $ref: '#/components/parameters/CsrfHeader' });
  if (withProduct) list.push({ $ref: '#/components/parameters/ProductId' });
  return list;
}

function security(op: OperationDef): Json[] {
  if (op.id === 'requestCsrf') return [{}];
  if (op.id === 'signIn') return [{ csrfCookie: [] }];
  return [{ sessionCookie: [], csrfCookie: [] }];
}

function successResponse(op: OperationDef, responseId: string | undefined): [string, Json] {
  const labels = {
    [`${PREFIX}-Api`]: { $ref: '#/components/headers/ApiBuild' },
    [`${PREFIX}-Lib`]: { $ref: '#/components/headers/LibBuild' },
  };
  if (NO_CONTENT.has(op.id))
    return [
      '204',
      {
        description:
          op.id === 'requestCsrf'
            ? `A fresh CSRF cookie (\`${PREFIX}-Csrf\`), usable for sign-in for an hour.`
            : 'Logged out; the session cookie is cleared.',
        headers: { 'Set-Cookie': { $ref: '#/components/headers/SetCookie' }, ...labels },
      },
    ];
  if (op.id === 'exportClientPropertyList')
    return [
      '200',
      {
        description: 'Every matching client as a streamed CSV: a header `clientId,<properties>`, one row per client.',
        headers: {
          'Content-Disposition': {
            description: 'attachment; filename="<product_id>_clients.csv"',
            schema: { type: 'string' },
          },
          ...labels,
        },
        content: { 'text/csv': { schema: { type: 'string' } } },
      },
    ];
  // A read with a body (a report POST) may ignore members; the emulator names them (docs/interface.md).
  const readWithBody = op.method === 'POST' && op.retrySafe && op.id !== 'signIn';
  const response: Json = {
    description:
      op.id === 'signIn' ? 'Signed in: the sign-in object; new CSRF and session cookies are set.' : 'The answer.',
    headers:
      op.id === 'signIn'
        ? { 'Set-Cookie': { $ref: '#/components/headers/SetCookie' }, ...labels }
        : readWithBody
          ? { ...labels, [`${PREFIX}-Ignored-Fields`]: { $ref: '#/components/headers/IgnoredFields' } }
          : labels,
    content: { 'application/json': { schema: { $ref: ref(responseId!) } } },
  };
  return ['200', response];
}

function errorResponses(op: OperationDef): Json {
  const r = (name: string) => ({ $ref: `#/components/responses/${name}` });
  const hasBody = op.method !== 'GET';
  return {
    ...(hasBody ? { '400': r('BadRequest') } : {}),
    ...(op.id === 'requestCsrf' ? {} : { '401': r('Unauthorized') }),
    '403': r('Forbidden'),
    '404': r('NotFound'),
    ...(op.id === 'signIn' ? { '409': r('SessionLimit') } : {}),
    ...(hasBody ? { '413': r('PayloadTooLarge') } : {}),
    '429': r('TooManyRequests'),
    '5XX': r('ServerError'),
  };
}

function operation(
  op: OperationDef,
  ids: Map<z.ZodType, string>,
  withProduct: boolean,
  operationId: string,
  summary: string,
): Json {
  const request = (REQUEST_SCHEMAS as Partial<Record<string, z.ZodType>>)[op.id];
  const response = RESPONSE_SCHEMAS[op.id as keyof typeof RESPONSE_SCHEMAS];
  const [status, success] = successResponse(op, response instanceof z.ZodType ? ids.get(response) : undefined);
  return {
    operationId,
    summary,
    ...(operationId !== op.id ? { 'x-operation': op.id } : {}),
    'x-retry-safe': op.retrySafe,
    parameters: parameters(op, withProduct),
    security: security(op),
    ...(request
      ? {
          requestBody: {
            // logout's body is optional (it counts as `{}`); every other body is required.
            required: op.id !== 'logout',
            content: {
              [op.id === 'exportClientPropertyList' ? '*/*' : 'application/json']: {
                schema: { $ref: ref(ids.get(request)!) },
              },
            },
          },
        }
      : {}),
    responses: { [status]: success, ...errorResponses(op) },
  };
}

const errorContent = (examples?: Json) => ({
  'application/json': { schema: { $ref: ref('ServiceErrorBody') }, ...(examples ? { examples } : {}) },
});

/** The document without examples (scripts/openapi/examples.ts adds them). */
export function buildDocument(): Json {
  const { schemas, ids } = componentSchemas(schemaRegistry());
  const summaries = purposes();
  const paths: Record<string, Json> = {};
  const add = (path: string, method: string, body: Json) => {
    paths[path] = { ...paths[path], [method.toLowerCase()]: body };
  };
  for (const op of OPERATIONS) {
    const def: OperationDef = op;
    const summary = summaries.get(def.id)!;
    add(def.path, def.method, operation(def, ids, def.path.includes('{product_id}'), def.id, summary));
    if (def.optionalProduct)
      add(
        `${def.path}/{product_id}`,
        def.method,
        operation(def, ids, true, `${def.id}OfProduct`, `${summary} (of this product)`),
      );
  }
  const doc: Json = {
    openapi: '3.1.1',
    info: {
      title: 'Reporting Service (as Pulse uses it)',
      version: '3',
      description: [
        "The Reporting Service interface v3 as Pulse's client and emulator implement it (docs/interface.md).",
        `Generated by \`npm run build:openapi\` from the client's zod schemas; do not edit by hand.`,
        `\`${PREFIX}\` stands for the vendor's header and cookie prefix (configurable).`,
        'Sign in: `requestCsrf` (sets the CSRF cookie), then `signIn` with that cookie and `{userName, password}`',
        '(sets new CSRF and session cookies); send both cookies and `Origin` on every later request, and `logout` at the end.',
        'A `signIn` without the CSRF cookie is answered 401 `Cookie Missing` and sets it, so repeating it once signs in.',
        'Response schemas are what the client accepts: documented members strictly, open questions loosely, extra members allowed.',
      ].join('\n'),
      license: { name: 'UNLICENSED', identifier: 'UNLICENSED' },
    },
    servers: [{ url: 'http://127.0.0.1:8787', description: 'The emulator (`npm run emulator`)' }],
    security: [{ sessionCookie: [], csrfCookie: [] }],
    paths,
    components: {
      schemas,
      securitySchemes: {
        csrfCookie: {
          type: 'apiKey',
          in: 'cookie',
          name: `${PREFIX}-Csrf`,
          description: 'Set by `requestCsrf` (usable for sign-in for an hour) and renewed by `signIn`.',
        },
        sessionCookie: {
          type: 'apiKey',
          in: 'cookie',
          name: `${PREFIX}-Session-Token`,
          description: 'Set by `signIn` (HttpOnly); a session ends at logout or after 30 idle minutes.',
        },
      },
      parameters: {
        Origin: {
          name: 'Origin',
          in: 'header',
          required: true,
          description: 'The one allowed dashboard origin; any other (or none) is 403 `Origin Not Allowed`.',
          schema: { type: 'string' },
          example: 'http://localhost:3000',
        },
        Client: {
          name: `${PREFIX}-Client`,
          in: 'header',
          description: 'Names the calling program (not checked).',
          schema: { type: 'string' },
          example: 'pulse',
        },
        ClientVersion: {
          name: `${PREFIX}-Client-Version`,
          in: 'header',
          description: "The calling program's version (not checked).",
          schema: { type: 'string' },
          example: '0.1.0',
        },
        CsrfHeader: {
          name: `${PREFIX}-Csrf`,
          in: 'header',
          description: 'Optional copy of the CSRF cookie; when sent it must equal the cookie (403 `CSRF Mismatch`).',
          schema: { type: 'string' },
        },
        ProductId: {
          name: 'product_id',
          in: 'path',
          required: true,
          description: 'The product: a string of digits (10–11 digits exceed 32-bit integers; never a number).',
          schema: { type: 'string', pattern: '^\\d{1,20}$' },
        },
      },
      headers: {
        SetCookie: {
          description: `\`${PREFIX}-Csrf\` and (at sign-in) \`${PREFIX}-Session-Token\`: \`Path=/; Secure; SameSite=None\`, the session cookie \`HttpOnly\` (over plain http://localhost without \`Secure\`).`,
          schema: { type: 'string' },
        },
        ApiBuild: { description: "The service's build label.", schema: { type: 'string' } },
        IgnoredFields: {
          description:
            'Emulator only: the body members this read ignored, as dotted paths separated by ", " (at most 20), e.g. `limit` sent where the member is `paging.limit`. Absent when every member was used.',
          schema: { type: 'string' },
        },
        LibBuild: { description: "The service library's build label.", schema: { type: 'string' } },
        RetryAfter: {
          description: 'Seconds to wait before the next request.',
          schema: { type: 'integer', minimum: 0 },
        },
      },
      responses: {
        BadRequest: {
          description:
            'The body is not JSON, or a member is missing, of the wrong type or out of range: `message` is `"<field path>: <problem>"`.',
          content: errorContent(),
        },
        Unauthorized: {
          description:
            '`Unauthorized`: no service cookie, an unknown or expired session, or wrong credentials. `Cookie Missing`: the session cookie is absent while another service cookie is present, or a sign-in came without the CSRF cookie (the answer sets one); transient, repeat once after about a second.',
          content: errorContent(),
        },
        Forbidden: {
          description:
            '`Origin Not Allowed` (Origin absent or different), `CSRF Mismatch` (the CSRF header differs from the cookie; at sign-in, a CSRF cookie not issued by `requestCsrf` within the hour) or `Feature Not Enabled` (raw data export operations on a product without the feature).',
          content: errorContent(),
        },
        NotFound: {
          description: "An unknown path or method, a product not among the user's, an unknown or unavailable file.",
          content: errorContent(),
        },
        SessionLimit: {
          description:
            'The user already holds the maximum number of sessions: end them with `logout` `{"allSessions": true}` from a live session, or wait for them to expire.',
          content: errorContent(),
        },
        PayloadTooLarge: { description: 'The body is larger than the service accepts.', content: errorContent() },
        TooManyRequests: {
          description: 'Rate limit: wait `Retry-After` seconds.',
          headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } },
          content: errorContent(),
        },
        ServerError: {
          description: 'A server fault; bodies from intermediaries may not be JSON.',
          content: errorContent(),
        },
      },
    },
  };
  pruneUnused(doc);
  return doc;
}
