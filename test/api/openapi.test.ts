/**
 * The committed contract, src/api/openapi.json: built from the client's schemas (it fails here when a schema changed
 * without `npm run build:openapi`), one operation per operation id, and every example valid against its own schema;
 * plus the validator other checks build on (src/api/contract-validator.ts).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildOpenApi, OPENAPI_PATH } from '../../scripts/build-openapi.ts';
import {
  type ContractDocument,
  ContractValidator,
  validateRequest,
  validateResponse,
} from '../../src/api/contract-validator.ts';
import { OPERATIONS } from '../../src/api/operations.ts';

const committed = readFileSync(OPENAPI_PATH, 'utf8');
/** The document as nested objects (what these tests check is its shape). */
interface Tree {
  [key: string]: Tree;
}
const doc = JSON.parse(committed) as Tree;
const contract = doc as unknown as ContractDocument;
const operations = Object.values(doc.paths!).flatMap((methods) => Object.values(methods));
const idOf = (op: Tree): string => String(op['x-operation'] ?? op.operationId);
const exampleOf = (content: Tree | undefined): unknown =>
  (Object.values(content ?? {})[0] as { example?: unknown }).example;

describe('src/api/openapi.json', () => {
  it('is what npm run build:openapi builds from the current schemas and emulator', async () => {
    const built = await buildOpenApi();
    // On failure: run `npm run build:openapi` and commit src/api/openapi.json.
    expect(built === committed, 'src/api/openapi.json is stale: run npm run build:openapi').toBe(true);
  }, 60_000);

  it('has one operation per operation id, named by it, at its method and path', () => {
    expect([...new Set(operations.map(idOf))].sort()).toEqual(OPERATIONS.map((o) => o.id).sort());
    for (const o of OPERATIONS) {
      const op = doc.paths![o.path]?.[o.method.toLowerCase()];
      expect(op?.operationId, o.id).toBe(o.id);
      expect(op?.['x-retry-safe']).toBe(o.retrySafe);
    }
    expect(doc.paths!['/v3/meta/productProperties/{product_id}']?.get?.['x-operation']).toBe('productProperties');
  });

  it('shows the sign-in flow: the CSRF and session cookies, Origin and the client headers', () => {
    const schemes = doc.components!.securitySchemes as unknown as Record<string, { in: string; name: string }>;
    expect(Object.values(schemes).map((s) => `${s.in}:${s.name}`)).toEqual([
      'cookie:Svc-Csrf',
      'cookie:Svc-Session-Token',
    ]);
    const names = (op: Tree) =>
      (op.parameters as unknown as { $ref: string }[]).map((p) => p.$ref.replace('#/components/parameters/', ''));
    for (const op of operations)
      expect(names(op)).toEqual(expect.arrayContaining(['Origin', 'Client', 'ClientVersion']));
    expect(doc.paths!['/v3/request-csrf']?.get?.security).toEqual([{}]);
    expect(doc.paths!['/v3/auth/web']?.post?.security).toEqual([{ csrfCookie: [] }]);
    expect(doc.paths!['/v3/auth/web']?.post?.responses?.['409']).toEqual({
      $ref: '#/components/responses/SessionLimit',
    });
    const unauthorized = doc.components!.responses!.Unauthorized!.content!['application/json'] as unknown as {
      examples: object;
    };
    expect(Object.keys(unauthorized.examples)).toContain('cookieMissing');
  });

  it('has a request and a response example for every operation, each valid against its own schema', () => {
    const v = new ContractValidator(contract);
    for (const op of operations) {
      const id = idOf(op);
      const [status, success] = Object.entries(op.responses!)[0]!;
      if (op.requestBody) {
        const example = exampleOf(op.requestBody.content);
        expect(example, `${id} request example`).toBeDefined();
        expect(v.validateRequest(id, example), `${id} request`).toEqual({ ok: true, differences: [] });
      }
      if (status === '204') continue;
      const example = exampleOf(success.content);
      expect(example, `${id} response example`).toBeDefined();
      expect(v.validateResponse(id, Number(status), example), `${id} response`).toEqual({ ok: true, differences: [] });
    }
  });

  it('has an example of every error answer, valid against the error body', () => {
    const statuses: Record<string, number> = { BadRequest: 400, Unauthorized: 401, Forbidden: 403, NotFound: 404 };
    for (const [name, status] of Object.entries(statuses)) {
      const media = doc.components!.responses![name]!.content!['application/json'] as unknown as {
        examples: Record<string, { value: unknown }>;
      };
      expect(Object.keys(media.examples).length).toBeGreaterThan(0);
      for (const { value } of Object.values(media.examples))
        expect(validateResponse('dateRangeReport', status, value).ok).toBe(true);
    }
  });
});

describe('contract validator', () => {
  it('names each difference by path, expectation and what came', () => {
    const r = validateResponse('listEvents', 200, {
      result: [{ category: 3, categoryEventNames: [{ eventName: 'x', basic: true, advanced: false }] }],
    });
    expect(r.ok).toBe(false);
    expect(r.differences).toEqual([
      { path: 'result[0].category', expected: 'type string or null', got: '3' },
      { path: 'result[0].categoryEventNames[0].dateFirstSeen', expected: 'a value (required)', got: 'nothing' },
    ]);
  });

  it('accepts every alternative the client tolerates, extra members included', () => {
    const counts = { new: 1, active: 2, lost: 0 };
    for (const result of [
      { totals: counts, level1: { Pro: { totals: counts } } },
      { '2026-10-05': counts },
      { '2026-10-05': { Pro: counts } },
    ])
      expect(validateResponse('dateRangeReport', 200, { result, extra: true }).ok, JSON.stringify(result)).toBe(true);
    const metrics = {
      eventCount: 1,
      eventCountPerUserUsedAtLeastOnce: 1,
      eventCountPerUserUsedAtLeastOnceActiveDay: 1,
    };
    const table = (row: object) => ({ returnedEventsCount: 1, matchingEventsCount: 1, result: [row] });
    expect(
      validateResponse('lifetimeDataTable', 200, table({ eventCategory: null, eventName: 'a', ...metrics })).ok,
    ).toBe(true);
    expect(
      validateResponse(
        'lifetimeDataTable',
        200,
        table({ eventCategory: 'c', categoryData: [{ eventName: 'a', ...metrics }] }),
      ).ok,
    ).toBe(true);
    expect(validateResponse('lifetimeDataTable', 200, table({ eventName: 7 })).ok).toBe(false);
  });

  it('checks the status, empty answers, CSV and error bodies', () => {
    expect(validateResponse('listEvents', 418, {}).differences).toEqual([
      { path: '(status)', expected: 'one of 200, 401, 403, 404, 429, 5XX', got: '418' },
    ]);
    expect(validateResponse('requestCsrf', 204, undefined).ok).toBe(true);
    expect(validateResponse('listEvents', 404, '{"error":"Not Found","message":"unknown product"}').ok).toBe(true);
    expect(validateResponse('listEvents', 502, '<html>Bad Gateway</html>').differences[0]?.path).toBe('(body)');
    expect(validateResponse('logout', 204, { x: 1 }).ok).toBe(false);
    expect(validateResponse('exportClientPropertyList', 200, 'clientId\r\nA\r\n').ok).toBe(true);
    expect(validateResponse('listEvents', 503, { error: 'Service Unavailable', message: 'injected fault' }).ok).toBe(
      true,
    );
    expect(validateResponse('listEvents', 401, { error: 'Unauthorized' }).differences).toEqual([
      { path: 'message', expected: 'a value (required)', got: 'nothing' },
    ]);
    expect(() => validateResponse('noSuchOperation', 200, {})).toThrow(/no operation "noSuchOperation"/);
  });

  it('checks request bodies: required members, ranges, and no body for GET', () => {
    expect(
      validateRequest('dateRangeReport', { startDate: '2026-10-01', stopDate: '2026-10-31', clientStatus: ['active'] })
        .ok,
    ).toBe(true);
    expect(validateRequest('searchLicenseKeys', { paging: { startAt: 0, limit: 5000 } }).differences).toEqual([
      { path: 'paging.limit', expected: 'must be <= 1000', got: '5000' },
    ]);
    expect(validateRequest('signIn', { userName: 'ada@example.com' }).ok).toBe(false);
    expect(validateRequest('logout', undefined).ok).toBe(true);
    expect(validateRequest('listEvents', undefined).ok).toBe(true);
    expect(validateRequest('listEvents', {}).ok).toBe(false);
  });
});
