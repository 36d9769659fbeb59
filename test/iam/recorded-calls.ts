/**
 * The recorded SDK calls of the bundled handlers (test/functions/bundled/) judged against the stack they were
 * synthesized with: each call mapped to the IAM requests AWS authorizes (aws-requests.ts), with the local peers'
 * names replaced by the deployed resources they stand for, and each distinct request evaluated for the function's
 * role session (simulate.ts). Pure: no peers, no processes.
 */
import { type DeployedResources, iamRequestsFor, type SdkCall } from './aws-requests.ts';
import type { CfnResolver } from './cfn-resolver.ts';
import type { DeployedIam } from './deployed-iam.ts';
import { type IamRequest, simulate, type Verdict } from './simulate.ts';

export interface Judged {
  fn: string;
  request: IamRequest;
  verdict: Verdict;
  /** The first recorded call that needed it. */
  call: SdkCall;
}

export interface Judgement {
  judged: Judged[];
  /** Calls with no row in aws-requests.ts (or whose input did not say what they touch). */
  unmapped: { call: SdkCall; reason: string }[];
}

/**
 * How the mapping sees the deployed account when the calls were made against local peers: `standIns` maps each
 * local name (bucket, table, secret ARN, queue URL) to the template value it stands for (the reference in the
 * functions' environment, e.g. `{ Ref: ArchiveBucket… }`).
 */
export function deployedResources(iam: DeployedIam, standIns: Map<string, unknown>): DeployedResources {
  const resolver: CfnResolver = iam.resolver;
  const deployed = new Map([...standIns].map(([local, ref]) => [local, resolver.string(ref)]));
  return {
    partition: resolver.target.partition,
    account: resolver.target.account,
    deployed: (local) => deployed.get(local) ?? local,
    bucketKey: (bucket) => iam.buckets.get(bucket)?.keyArn,
    partitionKey(table) {
      const t = iam.tables.get(table);
      if (!t) throw new Error(`no table ${table} in the template`);
      return t.partitionKey;
    },
    queueArn(url) {
      const arn = iam.queues.get(url);
      if (!arn) throw new Error(`no queue ${url} in the template`);
      return arn;
    },
  };
}

const requestId = (fn: string, r: IamRequest) => JSON.stringify([fn, r.action, r.resource, r.context ?? {}]);

export async function judgeRecordedCalls(
  iam: DeployedIam,
  standIns: Map<string, unknown>,
  calls: readonly SdkCall[],
): Promise<Judgement> {
  const aws = deployedResources(iam, standIns);
  const pending = new Map<string, { fn: string; request: IamRequest; call: SdkCall }>();
  const unmapped: Judgement['unmapped'] = [];
  for (const call of calls) {
    let requests: IamRequest[];
    try {
      requests = iamRequestsFor(call, aws);
    } catch (e) {
      unmapped.push({ call, reason: (e as Error).message });
      continue;
    }
    for (const request of requests) {
      const id = requestId(call.fn, request);
      if (!pending.has(id)) pending.set(id, { fn: call.fn, request, call });
    }
  }
  const judged: Judged[] = [];
  for (const { fn, request, call } of pending.values()) {
    const f = iam.functions.get(fn);
    if (!f) throw new Error(`no function ${fn} in the template`);
    judged.push({ fn, request, call, verdict: await simulate(iam, { arn: f.principal, roleArn: f.roleArn }, request) });
  }
  return { judged, unmapped };
}

/** One line per refusal: the function, the action, the resource (and its context), the call that needed it. */
export function describeDenial(j: Judged): string {
  const context = j.request.context ? ` ${JSON.stringify(j.request.context)}` : '';
  return (
    `${j.fn}: ${j.request.action} on ${j.request.resource}${context} → ${j.verdict.decision} ` +
    `(recorded ${j.call.service} ${j.call.command} ${JSON.stringify(j.call.input)})`
  );
}
