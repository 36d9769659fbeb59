/**
 * The contract in the test suite: every exchange with an emulator in this process (emulator/exchanges.ts) is held
 * against the interface document (src/api/openapi.json) — the emulator's answers always, unless a fault profile is
 * set (faults answer off the contract on purpose); the requests Pulse's client sent, unless the emulator refused them
 * as bad (a test that sends a bad request on purpose meets a 400 from both). Requests other test code sends by hand
 * are the emulator's to judge: they probe its own validation, leniency included (an invalid license-key item is
 * answered 200 with the item in `failed`).
 * test/helpers/contract-setup.ts (vitest `setupFiles`) fails the test during which a violation happened, naming the
 * operation, the side and the field path. A test that breaks the contract on purpose takes its violations first.
 */
import type { EmulatorExchange } from '../../emulator/index.ts';
import { type ContractDifference, validateRequest, validateResponse } from '../../src/api/contract-validator.ts';

export interface ContractViolation {
  operationId: string;
  side: 'request' | 'response';
  method: string;
  path: string;
  status: number;
  differences: ContractDifference[];
}

/** Pulse's own client names itself in `<prefix>-Client` (src/client/options.ts `clientName`). */
const PULSE_CLIENT = 'pulse';
/** Values under these names are never shown (the planted passwords of test/security). */
const SECRET_FIELD = /password|token|secret|csrf|cookie|session|url/i;

/** Exchanges seen and not yet judged: judging waits for the test's end, off the timing of its requests. */
const pending: EmulatorExchange[] = [];

/** The violations of one exchange. */
export function checkExchange(x: EmulatorExchange): ContractViolation[] {
  const id = x.operationId;
  if (id === undefined) return [];
  const out: ContractViolation[] = [];
  const at = { operationId: id, method: x.method, path: x.path, status: x.status };
  if (x.requestBody !== undefined && x.client === PULSE_CLIENT && x.status !== 400) {
    const check = validateRequest(id, x.method === 'GET' ? undefined : x.requestBody);
    const differences = withoutFailedItems(id, check.differences, bodyOf(x));
    if (differences.length > 0) out.push({ ...at, side: 'request', differences });
  }
  if (!x.faultsActive && x.responseText !== undefined) {
    const check = validateResponse(id, x.status, bodyOf(x));
    if (!check.ok) out.push({ ...at, side: 'response', differences: check.differences });
  }
  return out;
}

/**
 * A license-key write answers 200 with each invalid item listed in `failed` while the rest goes on (docs/interface.md
 * "License key registry"): item differences are the service's to report, as long as it reports as many.
 */
function withoutFailedItems(id: string, differences: ContractDifference[], answer: unknown): ContractDifference[] {
  if (id !== 'insertLicenseKeys' && id !== 'updateLicenseKeys') return differences;
  const failed = (answer as { result?: { failed?: unknown[] } } | undefined)?.result?.failed?.length ?? 0;
  const itemOf = (d: ContractDifference) => /^keyUpdates\[(\d+)\]/.exec(d.path)?.[1];
  const items = new Set(differences.map(itemOf).filter((i) => i !== undefined));
  return items.size <= failed ? differences.filter((d) => itemOf(d) === undefined) : differences;
}

function bodyOf(x: EmulatorExchange): unknown {
  if (x.responseText === '' || x.responseText === undefined) return undefined;
  if (!x.contentType?.includes('json')) return x.responseText;
  try {
    return JSON.parse(x.responseText);
  } catch {
    return x.responseText;
  }
}

export function record(x: EmulatorExchange): void {
  pending.push(x);
}

/** The violations of the exchanges seen so far, which are forgotten: also for a test that breaks the contract on purpose. */
export function takeViolations(): ContractViolation[] {
  return pending.splice(0).flatMap(checkExchange);
}

/** One line per difference: `contract: dateRangeReport response (POST /v3/… → 200) at result.totals: …`. */
export function describeViolations(violations: ContractViolation[]): string {
  return violations
    .flatMap((v) =>
      v.differences.map((d) => {
        const got = SECRET_FIELD.test(d.path.split(/[.[]/).at(-1) ?? '') ? '(hidden)' : d.got;
        return `contract: ${v.operationId} ${v.side} (${v.method} ${v.path} → ${v.status}) at ${d.path}: the document says ${d.expected}, got ${got}`;
      }),
    )
    .join('\n');
}
