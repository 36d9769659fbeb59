/**
 * A local peer for the AWS services Pulse calls that have none (Secrets Manager, SQS): an HTTP server on 127.0.0.1
 * answering the AWS JSON protocol (`POST /`, `X-Amz-Target: <service>.<Operation>`, a JSON body) from the given
 * operations, recording every call. A real SDK client in another process reaches it through
 * `AWS_ENDPOINT_URL_<SERVICE>`; unlike an SDK mock it sees what the bundled code really sends.
 */
import { createHash, randomUUID } from 'node:crypto';
import { startStubServer } from './stub-server.ts';

/** An operation's answer: its JSON body, or an AWS error (`__type`) with a status. */
export type StubAnswer = { body: unknown } | { status: number; type: string; message: string };
export type StubOperation = (input: Record<string, unknown>) => StubAnswer;

export interface AwsJsonStub {
  url: string;
  /** Every call, in order: `service.Operation` and its input. */
  readonly calls: { target: string; input: Record<string, unknown> }[];
  close(): Promise<void>;
}

export async function startAwsJsonStub(operations: Record<string, StubOperation>): Promise<AwsJsonStub> {
  const calls: AwsJsonStub['calls'] = [];
  const server = await startStubServer((req, body) => {
    const target = String(req.headers['x-amz-target'] ?? '');
    const input = JSON.parse(body.toString('utf8') || '{}') as Record<string, unknown>;
    calls.push({ target, input });
    const operation = operations[target];
    const answer: StubAnswer = operation
      ? operation(input)
      : { status: 400, type: 'UnknownOperationException', message: `no stub for ${target}` };
    const [status, json] =
      'body' in answer ? [200, answer.body] : [answer.status, { __type: answer.type, message: answer.message }];
    const contentType = String(req.headers['content-type'] ?? 'application/x-amz-json-1.1');
    return {
      status,
      headers: { 'Content-Type': contentType, 'x-amzn-RequestId': randomUUID() },
      body: JSON.stringify(json),
    };
  });
  return { ...server, calls };
}

/** Secrets Manager's GetSecretValue over `secrets` (ARN → secret string, read at each call). */
export const getSecretValue =
  (secrets: Map<string, string>): StubOperation =>
  (input) => {
    const id = String(input.SecretId);
    const value = secrets.get(id);
    if (value === undefined)
      return { status: 400, type: 'ResourceNotFoundException', message: `Secrets Manager can't find ${id}` };
    return { body: { ARN: id, Name: id.split(':').at(-1), SecretString: value, VersionId: randomUUID() } };
  };

/** SQS's SendMessageBatch: every entry accepted (with the MD5 the SDK checks) and appended to `sent`. */
export const sendMessageBatch =
  (sent: { id: string; body: string }[]): StubOperation =>
  (input) => {
    const entries = input.Entries as { Id: string; MessageBody: string }[];
    const successful = entries.map((e) => {
      const id = randomUUID();
      sent.push({ id, body: e.MessageBody });
      return { Id: e.Id, MessageId: id, MD5OfMessageBody: createHash('md5').update(e.MessageBody).digest('hex') };
    });
    return { body: { Successful: successful, Failed: [] } };
  };
