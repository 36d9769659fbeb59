/**
 * One IAM request evaluated the way AWS would, against the deployed stack's policies (deployed-iam.ts): the
 * principal's identity policies and the resource's policy, by @cloud-copilot/iam-simulate, a maintained simulator of
 * IAM's evaluation logic (same-account rules, KMS key policies, role trust policies, service principals, every
 * condition operator). Requests are made over TLS, as every SDK call and service delivery in AWS is.
 *
 * Licence: @cloud-copilot/iam-simulate is AGPL-3.0-or-later. It is a devDependency used by tests only: nothing
 * under src/, lib/, functions/ or bin/ imports it, and no Lambda bundle or CLI build includes it.
 */
import { runSimulation } from '@cloud-copilot/iam-simulate';
import type { DeployedIam } from './deployed-iam.ts';

export interface IamRequest {
  action: string;
  resource: string;
  /** Condition context keys and their values (multi-valued keys as arrays). */
  context?: Record<string, string | string[]>;
}

export interface Principal {
  /** The ARN the request is signed as (a role session, a role) or a service principal (`s3.amazonaws.com`). */
  arn: string;
  /** The role whose identity policies apply; none for a service principal. */
  roleArn?: string;
}

export type Decision = 'Allowed' | 'ExplicitlyDenied' | 'ImplicitlyDenied';

export interface Verdict {
  decision: Decision;
}

export class SimulationError extends Error {
  override name = 'SimulationError';
}

export async function simulate(iam: DeployedIam, principal: Principal, request: IamRequest): Promise<Verdict> {
  const { account } = iam.resolver.target;
  const resourcePolicy = iam.resourcePolicy(request.resource);
  const response = await runSimulation(
    {
      request: {
        principal: principal.arn,
        action: request.action,
        resource: { resource: request.resource, accountId: account },
        contextVariables: { 'aws:SecureTransport': 'true', ...request.context },
      },
      identityPolicies: principal.roleArn ? iam.identityPolicies(principal.roleArn) : [],
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      ...(resourcePolicy ? { resourcePolicy } : {}),
    },
    { simulationMode: 'Strict' },
  );
  if (response.resultType === 'error')
    throw new SimulationError(
      `${principal.arn} ${request.action} on ${request.resource}: the simulator refused the input: ` +
        JSON.stringify(response.errors),
    );
  if (response.resultType !== 'single')
    throw new SimulationError(`${request.action} on ${request.resource}: a concrete resource was expected`);
  // A context key the simulator drops does not apply to the action: the request was described wrongly, and a
  // condition on that key would be judged without it.
  const ignored = response.result.ignoredContextKeys ?? [];
  if (ignored.length > 0)
    throw new SimulationError(`${request.action} on ${request.resource}: context keys that do not apply: ${ignored}`);
  return { decision: response.overallResult };
}
