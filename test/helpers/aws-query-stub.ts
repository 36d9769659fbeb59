/**
 * A local peer for AWS services on the Query protocol (CloudFormation, SNS): an HTTP server on 127.0.0.1 that reads
 * the form-encoded `Action=…` body and answers the XML envelope the SDK parses (`<ActionResponse><ActionResult>…`),
 * or an `<ErrorResponse>`. A real SDK client reaches it through `AWS_ENDPOINT_URL_<SERVICE>`. Like aws-json-stub.ts,
 * it sees what the code really sends, and records every call.
 */
import { randomUUID } from 'node:crypto';
import { startStubServer } from './stub-server.ts';

/** An operation's answer: the XML inside `<ActionResult>`, or an AWS error. */
export type QueryAnswer = { result: string } | { status: number; code: string; message: string };
export type QueryOperation = (params: URLSearchParams) => QueryAnswer;

export interface AwsQueryStub {
  url: string;
  readonly calls: { action: string; params: URLSearchParams }[];
  close(): Promise<void>;
}

/** Text for an XML element. */
export const xml = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

export async function startAwsQueryStub(
  namespace: string,
  operations: Record<string, QueryOperation>,
): Promise<AwsQueryStub> {
  const calls: AwsQueryStub['calls'] = [];
  const server = await startStubServer((_req, body) => {
    const params = new URLSearchParams(body.toString('utf8'));
    const action = params.get('Action') ?? '';
    calls.push({ action, params });
    const operation = operations[action];
    const answer: QueryAnswer = operation
      ? operation(params)
      : { status: 400, code: 'InvalidAction', message: `no stub for ${action}` };
    const requestId = `<ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata>`;
    const [status, xmlBody] =
      'result' in answer
        ? [
            200,
            `<${action}Response xmlns="${namespace}"><${action}Result>${answer.result}</${action}Result>${requestId}</${action}Response>`,
          ]
        : [
            answer.status,
            `<ErrorResponse xmlns="${namespace}"><Error><Type>Sender</Type><Code>${answer.code}</Code><Message>${xml(answer.message)}</Message></Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`,
          ];
    return { status, headers: { 'Content-Type': 'text/xml' }, body: xmlBody };
  });
  return { ...server, calls };
}
