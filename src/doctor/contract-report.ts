/**
 * How `pulse doctor --contract` tells its outcomes: one line per operation (one per difference when its answer
 * differs), and the JSON report a user attaches to a bug. Neither carries a request header, a cookie or a
 * credential: the requests are Pulse's own small bodies, and the answers appear only as differences.
 */
import { OPERATION_BY_ID } from '../api/operations.ts';
import type { OperationOutcome } from './contract-check.ts';

const MARK: Record<OperationOutcome['result'], string> = { conforms: '✓', differs: '✗', skipped: '-', unchecked: '!' };

/** The lines of one outcome; `why` is the failure's one-line description, when one kept it from being checked. */
export function outcomeLines(o: OperationOutcome, why?: string): string[] {
  const id = o.operationId;
  if (o.result === 'differs')
    return o.differences.map((d) => `${MARK.differs} ${id}: ${d.path}: the document says ${d.expected}, came ${d.got}`);
  if (o.result === 'conforms') return [`${MARK.conforms} ${id}: conforms (${o.detail})`];
  return [`${o.error !== undefined && why ? MARK.differs : MARK[o.result]} ${id}: ${o.detail}${why ? `: ${why}` : ''}`];
}

export type ContractSummary = Record<OperationOutcome['result'], number>;

export function summarize(outcomes: readonly OperationOutcome[]): ContractSummary {
  const counts: ContractSummary = { conforms: 0, differs: 0, skipped: 0, unchecked: 0 };
  for (const o of outcomes) counts[o.result]++;
  return counts;
}

export function summaryLine(s: ContractSummary): string {
  return `contract: ${s.conforms} conform, ${s.differs} differ, ${s.skipped} skipped, ${s.unchecked} not checked`;
}

export interface ContractReport {
  kind: 'pulse-contract-report';
  checkedAt: string;
  service: { baseUrl: string; productIds: readonly string[] };
  summary: ContractSummary;
  operations: {
    operationId: string;
    method: string;
    path: string;
    result: OperationOutcome['result'];
    status?: number;
    detail: string;
    differences: OperationOutcome['differences'];
  }[];
}

export function contractReport(
  outcomes: readonly OperationOutcome[],
  meta: { baseUrl: string; productIds: readonly string[]; checkedAt: Date },
): ContractReport {
  return {
    kind: 'pulse-contract-report',
    checkedAt: meta.checkedAt.toISOString(),
    service: { baseUrl: meta.baseUrl, productIds: meta.productIds },
    summary: summarize(outcomes),
    operations: outcomes.map((o) => {
      const op = OPERATION_BY_ID.get(o.operationId)!;
      return {
        operationId: o.operationId,
        method: op.method,
        path: op.path,
        result: o.result,
        ...(o.status !== undefined ? { status: o.status } : {}),
        detail: o.detail,
        differences: o.differences,
      };
    }),
  };
}
