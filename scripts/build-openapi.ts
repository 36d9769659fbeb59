/**
 * Writes src/api/openapi.json, the Reporting Service contract (`npm run build:openapi`): the document of
 * scripts/openapi/document.ts with the examples of scripts/openapi/examples.ts, each checked against its own schema
 * before anything is written. test/api/openapi.test.ts fails when the committed file differs from what this builds.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ApiError, payloadTooLarge, tooManyRequests } from '../emulator/http/errors.ts';
import { type ContractDocument, ContractValidator } from '../src/api/contract-validator.ts';
import { buildDocument } from './openapi/document.ts';
import { collectExamples } from './openapi/examples.ts';

export const OPENAPI_PATH = fileURLToPath(new URL('../src/api/openapi.json', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIOME = fileURLToPath(new URL('../node_modules/@biomejs/biome/bin/biome', import.meta.url));

/** The JSON as biome formats it, so `npm run check` (biome) accepts the committed file as it is written. */
function formatted(json: string): string {
  const r = spawnSync(process.execPath, [BIOME, 'format', '--stdin-file-path=src/api/openapi.json'], {
    cwd: ROOT,
    input: json,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(`biome format failed: ${r.stderr}`);
  return r.stdout;
}

/** The document as nested objects, to set its examples in place (the tests check its shape, not this type). */
interface Tree {
  [key: string]: Tree;
}
const body = (e: ApiError) => ({ error: e.error, message: e.message });
const setExample = (media: Tree, key: 'example' | 'examples', value: unknown) => {
  (media as Record<string, unknown>)[key] = value;
};

/** Error examples by component response: name → status, summary and body. */
const ERROR_GROUPS: Record<string, string[]> = {
  BadRequest: ['badRequest', 'invalidJson'],
  Unauthorized: ['unauthorized', 'cookieMissing', 'wrongCredentials'],
  Forbidden: ['originNotAllowed', 'csrfMismatch', 'featureNotEnabled'],
  NotFound: ['notFound'],
  SessionLimit: ['sessionLimit'],
};

/** The document with its examples, as committed; throws when an example breaks its own schema. */
export async function buildOpenApi(): Promise<string> {
  const doc = buildDocument();
  const tree = doc as unknown as Tree;
  const { operations, errors } = await collectExamples();
  for (const methods of Object.values(tree.paths!))
    for (const op of Object.values(methods)) {
      const id = String(op['x-operation'] ?? op.operationId);
      const ex = operations[id];
      if (!ex) throw new Error(`no example for ${id}`);
      for (const media of Object.values(op.requestBody?.content ?? {})) setExample(media, 'example', ex.request.body);
      const success = op.responses!['200'] ?? op.responses!['204']!;
      for (const media of Object.values(success.content ?? {})) setExample(media, 'example', ex.response);
    }
  const jsonOf = (name: string) => tree.components!.responses![name]!.content!['application/json']!;
  for (const [name, keys] of Object.entries(ERROR_GROUPS))
    setExample(
      jsonOf(name),
      'examples',
      Object.fromEntries(keys.map((k) => [k, { summary: errors[k]!.summary, value: errors[k]!.body }])),
    );
  const one = (summary: string, e: ApiError) => ({ example: { summary, value: body(e) } });
  setExample(jsonOf('PayloadTooLarge'), 'examples', one('Over the body limit', payloadTooLarge(1024 * 1024)));
  setExample(jsonOf('TooManyRequests'), 'examples', one('Rate limit', tooManyRequests(2)));
  setExample(
    jsonOf('ServerError'),
    'examples',
    one('A server fault', new ApiError(500, 'Internal Server Error', 'internal error')),
  );
  setExample(tree.components!.parameters!.ProductId!, 'example', operations.listEvents!.request.productId);
  checkExamples(doc as unknown as ContractDocument, operations, errors);
  return formatted(JSON.stringify(doc));
}

/** Every example valid against its own schema, and every error example answered with its documented status. */
function checkExamples(
  doc: ContractDocument,
  operations: Awaited<ReturnType<typeof collectExamples>>['operations'],
  errors: Awaited<ReturnType<typeof collectExamples>>['errors'],
): void {
  const v = new ContractValidator(doc);
  const problems: string[] = [];
  for (const [id, ex] of Object.entries(operations)) {
    const status = ex.response === undefined ? 204 : 200;
    for (const [what, r] of [
      ['request', v.validateRequest(id, ex.request.body)],
      ['response', v.validateResponse(id, status, ex.response)],
    ] as const)
      if (!r.ok) problems.push(`${id} ${what}: ${JSON.stringify(r.differences)}`);
  }
  const statusOf: Record<string, number> = {
    BadRequest: 400,
    Unauthorized: 401,
    Forbidden: 403,
    NotFound: 404,
    SessionLimit: 409,
  };
  for (const [group, keys] of Object.entries(ERROR_GROUPS))
    for (const k of keys)
      if (errors[k]!.status !== statusOf[group])
        problems.push(`${k}: status ${errors[k]!.status}, documented ${statusOf[group]}`);
  if (problems.length) throw new Error(`examples that break the contract:\n${problems.join('\n')}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(OPENAPI_PATH, await buildOpenApi());
  process.stdout.write(`wrote ${OPENAPI_PATH}\n`);
}
