/**
 * `pulse doctor --contract`: every operation of the interface held against the OpenAPI document (src/api/openapi.json).
 * Signs in with the configured credentials, sends each read-only operation one small request (contract-requests.ts),
 * and checks what the service answered — every answer, sign-in and logout included — with the document's schema for
 * that operation and status, and each request it sent too. Writes and the whole-file export are listed as skipped;
 * logout runs last and ends only the check's own session. One outcome per operation, all 33, in the order run.
 */
import { validateRequest, validateResponse } from '../api/contract-validator.ts';
import { OPERATION_BY_ID, OPERATIONS, type OperationDef, type OperationId } from '../api/operations.ts';
import { BadRequestError, FeatureNotEnabledError, ReportingClient, ResponseShapeError } from '../client/index.ts';
import { LEARN, NEVER_CALLED, type PlanContext, REQUESTS, rangeBefore } from './contract-requests.ts';
import { type RecordedAnswer, RecordingFetch } from './recording-fetch.ts';

export interface ContractDifference {
  /** Where, e.g. `result.totals.active`; request differences start with `request`. */
  path: string;
  /** What the document says. */
  expected: string;
  /** What came (or what was sent). */
  got: string;
}

export interface OperationOutcome {
  operationId: OperationId;
  /** `unchecked`: not called, or its answer was an error the document allows (so its result was not seen). */
  result: 'conforms' | 'differs' | 'skipped' | 'unchecked';
  /** The HTTP status of the answer judged. */
  status?: number;
  /** `HTTP 200`, why it was skipped or not checked. */
  detail: string;
  differences: ContractDifference[];
  /** The failure that kept it from being checked: the command's exit code comes from it. */
  error?: unknown;
}

export interface ContractCheckInput {
  /** A client whose fetch is `recorder.fetch`, with the configured credentials. */
  client: ReportingClient;
  recorder: RecordingFetch;
  /** The configured products: the first is asked everything; raw events go to the first with that feature. */
  productIds: readonly string[];
  /** Today on this workstation (the report range ends a week before). */
  today?: Date;
}

/**
 * A client like `base` (same service, credentials, limits) whose every answer is recorded, and whose password is
 * known to the recorder's secrets so that no output can show it.
 */
export function recordingClient(base: ReportingClient): { client: ReportingClient; recorder: RecordingFetch } {
  const recorder = new RecordingFetch(base.options.fetch);
  const { credentials } = base.options;
  const { logger, ...options } = base.options;
  const client = new ReportingClient({
    ...options,
    ...(logger ? { logger } : {}),
    fetch: recorder.fetch,
    credentials: async () => {
      const c = typeof credentials === 'function' ? await credentials() : credentials;
      recorder.secrets.add(c.password);
      return c;
    },
  });
  return { client, recorder };
}

const ROUTE_PATTERNS = new Map<string, RegExp>(
  OPERATIONS.map((o: OperationDef) => {
    const literal = (part: string) => part.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&');
    const path = o.path.split('{product_id}').map(literal).join('[^/]+');
    return [o.id, new RegExp(`^${path}${o.optionalProduct ? '(/[^/]+)?' : ''}$`)];
  }),
);

/** The recorded answers of `id` (sign-in records two operations in one call). */
const answersOf = (id: OperationId, answers: RecordedAnswer[]) =>
  answers.filter((a) => a.method === OPERATION_BY_ID.get(id)!.method && ROUTE_PATTERNS.get(id)!.test(a.path));

function parseBody(a: RecordedAnswer): { body: unknown } | { notJson: true } {
  if (a.text === '') return { body: undefined };
  try {
    return { body: JSON.parse(a.text) };
  } catch {
    return a.contentType?.includes('json') ? { notJson: true } : { body: a.text };
  }
}

const statusLine = (a: RecordedAnswer, error: unknown) => {
  const e = error as { serviceError?: string; serviceMessage?: string } | undefined;
  return `HTTP ${a.status}${e?.serviceError ? ` ${e.serviceError}` : ''}${e?.serviceMessage ? `: ${e.serviceMessage}` : ''}`;
};

/** Judges what `id` was sent and answered during one call. */
export function judge(
  id: OperationId,
  answers: RecordedAnswer[],
  error: unknown,
  requestDifferences: ContractDifference[] = [],
): OperationOutcome {
  const mine = answersOf(id, answers);
  const last = mine.at(-1);
  if (!last) {
    const detail = error === undefined ? 'not checked: no answer came' : 'not checked: the request failed';
    return { operationId: id, result: 'unchecked', detail, differences: requestDifferences, error };
  }
  const differences = [...requestDifferences];
  for (const a of mine) {
    const parsed = parseBody(a);
    if ('notJson' in parsed) differences.push({ path: '(body)', expected: 'JSON', got: 'a body that is not JSON' });
    else if (a.truncated) differences.push({ path: '(body)', expected: 'a small answer', got: 'more than 4 MiB' });
    else differences.push(...validateResponse(id, a.status, parsed.body).differences.map(describe));
  }
  const unique = collapsed(differences);
  // A documented request the service refused: the two disagree about the request.
  if (error instanceof BadRequestError && last.status === 400 && requestDifferences.length === 0)
    unique.push({ path: 'request', expected: 'accepted (it conforms to the document)', got: statusLine(last, error) });
  // The document is written from the client's schemas: an answer one accepts and the other does not is a Pulse bug.
  if (error instanceof ResponseShapeError && error.operationId === id && unique.length === 0)
    unique.push({ path: error.path, expected: "what Pulse's client reads", got: error.message });
  const status = last.status;
  if (unique.length > 0)
    return { operationId: id, result: 'differs', status, detail: `HTTP ${status}`, differences: unique };
  if (status < 300) return { operationId: id, result: 'conforms', status, detail: `HTTP ${status}`, differences: [] };
  return {
    operationId: id,
    result: 'unchecked',
    status,
    detail: `answered ${statusLine(last, error)} (the error's shape conforms; the result was not seen)`,
    differences: [],
    error,
  };
}

/**
 * One difference per place and expectation, items of a list counted together: `result[*].category` (8 items) rather
 * than eight lines.
 */
function collapsed(differences: ContractDifference[]): ContractDifference[] {
  const groups = new Map<string, { first: ContractDifference; path: string; places: Set<string> }>();
  for (const d of differences) {
    const path = d.path.replace(/\[\d+\]/g, '[*]');
    const key = `${path}\u0000${d.expected}`;
    const group = groups.get(key) ?? { first: d, path, places: new Set<string>() };
    group.places.add(d.path);
    groups.set(key, group);
  }
  return [...groups.values()].map(({ first, path, places }) =>
    places.size === 1 ? first : { ...first, path, got: `${first.got} (in ${places.size} items)` },
  );
}

/** Members whose values are never shown, whatever came: a token, a signed download address. */
const SECRET_FIELD = /password|token|secret|csrf|cookie|session|url|signature/i;

/** The validator's difference with its values as text; what came at a secret-looking member is not shown. */
function describe(d: { path: string; expected: unknown; got: unknown }): ContractDifference {
  const text = (v: unknown) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? 'nothing'));
  const hidden = SECRET_FIELD.test(d.path.split(/[.[]/).at(-1) ?? '') && d.got !== 'nothing';
  return { path: d.path, expected: text(d.expected), got: hidden ? '(a value not shown)' : text(d.got) };
}

export async function* runContractCheck(input: ContractCheckInput): AsyncGenerator<OperationOutcome> {
  const { client, recorder } = input;
  const context: PlanContext = {
    productId: input.productIds[0]!,
    range: rangeBefore(input.today ?? new Date()),
    files: {},
  };
  const done = new Set<OperationId>();
  const emit = (o: OperationOutcome) => {
    done.add(o.operationId);
    return o;
  };
  /** Runs `send`, returning the answers it recorded and what it threw. */
  const recorded = async (send: () => Promise<unknown>) => {
    const from = recorder.answers.length;
    let error: unknown;
    try {
      await send();
    } catch (e) {
      error = e;
    }
    return { answers: recorder.since(from), error };
  };

  const signIn = await recorded(() => client.signIn());
  for (const id of ['requestCsrf', 'signIn'] as const) yield emit(judge(id, signIn.answers, signIn.error));
  // An answer the client could not read still opened the session: its differences are listed, the check goes on.
  const signedIn = signIn.error === undefined || signIn.error instanceof ResponseShapeError;

  for (const { id } of OPERATIONS) {
    if (done.has(id) || id === 'logout') continue;
    const never = NEVER_CALLED[id];
    if (never) {
      yield emit({ operationId: id, result: 'skipped', detail: never, differences: [] });
      continue;
    }
    if (!signedIn) {
      yield emit({ operationId: id, result: 'unchecked', detail: 'not checked: not signed in', differences: [] });
      continue;
    }
    const run = { client, recorded };
    const outcome = id.startsWith('rawEvents')
      ? await rawEvents(id, context, input.productIds, run)
      : await callOnce(id, context, context.productId, run);
    yield emit(outcome);
  }

  if (!signedIn) {
    yield emit({ operationId: 'logout', result: 'unchecked', detail: 'not checked: not signed in', differences: [] });
    return;
  }
  // Last: it ends the check's own session (never `allSessions`), as every doctor run does.
  const logout = await recorded(() => client.logout());
  yield emit(judge('logout', logout.answers, logout.error));
}

interface Run {
  client: ReportingClient;
  /** Runs `send`, returning the answers it recorded and what it threw. */
  recorded(send: () => Promise<unknown>): Promise<{ answers: RecordedAnswer[]; error: unknown }>;
}

async function callOnce(id: OperationId, context: PlanContext, productId: string, run: Run): Promise<OperationOutcome> {
  const planned = REQUESTS[id]!(context);
  if ('notSent' in planned) return { operationId: id, result: 'unchecked', detail: planned.notSent, differences: [] };
  const op = OPERATION_BY_ID.get(id)!;
  const requestDifferences =
    op.method === 'GET'
      ? []
      : validateRequest(id, planned.body ?? {}).differences.map((d) => {
          const x = describe(d);
          return { ...x, path: x.path === '(root)' || x.path === '' ? 'request' : `request ${x.path}` };
        });
  const { answers, error } = await run.recorded(() =>
    run.client.call(id, { productId, ...(planned.body !== undefined ? { body: planned.body } : {}) }),
  );
  const judged = judge(id, answers, error, requestDifferences);
  // Raw event files may come from another product than the rest: say which.
  const outcome =
    productId === context.productId || judged.result !== 'conforms'
      ? judged
      : { ...judged, detail: `${judged.detail}, product ${productId}` };
  // Only a conforming answer tells later requests anything: an altered one would only spread its difference.
  const last = answersOf(id, answers).at(-1);
  if (last && judged.result === 'conforms') {
    const parsed = parseBody(last);
    if ('body' in parsed) LEARN[id]?.(context, parsed.body);
  }
  return outcome;
}

/**
 * Raw event files need the raw data export feature: the listing is asked of each configured product until one has
 * it, and the download address of that product. Refused by every product, only the error's shape was checked.
 */
async function rawEvents(
  id: OperationId,
  context: PlanContext,
  productIds: readonly string[],
  run: Run,
): Promise<OperationOutcome> {
  let outcome: OperationOutcome | undefined;
  for (const productId of id === 'rawEventsListFiles' ? productIds : [context.rawProductId ?? context.productId]) {
    outcome = await callOnce(id, context, productId, run);
    if (!(outcome.error instanceof FeatureNotEnabledError)) {
      if (id === 'rawEventsListFiles') context.rawProductId = productId;
      return outcome;
    }
  }
  return { ...outcome!, result: 'conforms', detail: `${outcome!.detail}: no configured product has raw data export` };
}
