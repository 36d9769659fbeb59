/**
 * A Lambda-backed CloudFormation custom resource's side of the protocol: the event CloudFormation sends, and the
 * one answer the function must PUT to the event's pre-signed `ResponseURL` (or the stack waits for an hour). The
 * `cfn-response` module does the same for inline functions; it is not a package for bundled code, and the answer is
 * one HTTP PUT. The URL must be https (a pre-signed S3 URL), or loopback http in tests.
 */

export interface CustomResourceEvent {
  RequestType: 'Create' | 'Update' | 'Delete';
  ResponseURL: string;
  StackId: string;
  RequestId: string;
  LogicalResourceId: string;
  /** Absent on Create. */
  PhysicalResourceId?: string;
  ResourceProperties: Record<string, unknown>;
}

export type CustomResourceOutcome =
  | { ok: true; physicalResourceId: string; data: Record<string, string> }
  | { ok: false; reason: string };

/** CloudFormation reads at most 4096 bytes of an answer; the reason is what the operator sees in the events. */
const MAX_REASON = 2048;

export async function respond(event: CustomResourceEvent, outcome: CustomResourceOutcome): Promise<void> {
  const url = new URL(event.ResponseURL);
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback))
    throw new Error(`custom resource: refusing to answer CloudFormation over ${url.protocol}`);
  const body = JSON.stringify({
    Status: outcome.ok ? 'SUCCESS' : 'FAILED',
    Reason: outcome.ok ? 'done' : outcome.reason.slice(0, MAX_REASON),
    // A failed Create has no resource yet: CloudFormation still needs an id (the log stream's name is customary).
    PhysicalResourceId: outcome.ok ? outcome.physicalResourceId : (event.PhysicalResourceId ?? event.LogicalResourceId),
    StackId: event.StackId,
    RequestId: event.RequestId,
    LogicalResourceId: event.LogicalResourceId,
    Data: outcome.ok ? outcome.data : {},
  });
  // The pre-signed URL was signed without a content type: send none.
  const answer = await fetch(url, { method: 'PUT', body, headers: { 'content-type': '' } });
  if (!answer.ok) throw new Error(`custom resource: CloudFormation's response URL answered ${answer.status}`);
}
