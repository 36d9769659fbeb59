/**
 * SqsCopyQueue against the SDK with aws-sdk-client-mock: no SQS-compatible server runs here, and the faults that
 * matter (entries refused within a batch, a request failing) are SQS's to produce. What must hold: batches of ten,
 * refused entries sent again, and what SQS never takes handed back with its reason — never dropped.
 */
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { SqsCopyQueue } from '../../src/adapters/aws/sqs-copy-queue.ts';
import type { CopyMessage } from '../../src/ports/copy-queue.ts';

const client = new SQSClient({ region: 'eu-west-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
const sqs = mockClient(client);
afterEach(() => sqs.reset());

const QUEUE = 'https://sqs.eu-west-1.amazonaws.com/123456789012/pulse-copy';
const message = (i: number): CopyMessage => ({
  runId: '2026-11-20T12-00-00.000Z',
  file: {
    productId: '12345678901',
    kind: 'customEvents',
    fileName: `12345678901_cust_2026-10-${String(i).padStart(2, '0')}.zip`,
    fileDate: `2026-10-${String(i).padStart(2, '0')}`,
    key: `pulse/12345678901/customEvents/2026/10/${i}.zip`,
    state: 'missing',
    backfill: false,
  },
});
const sentBodies = () =>
  sqs.commandCalls(SendMessageBatchCommand).flatMap((c) => c.args[0].input.Entries?.map((e) => e.MessageBody) ?? []);

describe('SqsCopyQueue', () => {
  it('sends 23 messages as batches of at most ten, each body the message as JSON', async () => {
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
    const messages = Array.from({ length: 23 }, (_, i) => message(i + 1));
    const unsent = await new SqsCopyQueue({ client, queueUrl: QUEUE }).enqueue(messages);
    expect(unsent).toEqual([]);
    const calls = sqs.commandCalls(SendMessageBatchCommand);
    expect(calls.map((c) => c.args[0].input.Entries?.length).sort()).toEqual([10, 10, 3]);
    expect(calls.every((c) => c.args[0].input.QueueUrl === QUEUE)).toBe(true);
    expect(
      sentBodies()
        .map((b) => JSON.parse(b!))
        .sort((a, b) => a.file.key.localeCompare(b.file.key)),
    ).toEqual([...messages].sort((a, b) => a.file.key.localeCompare(b.file.key)));
  });

  it('sends refused entries again, and only those', async () => {
    sqs
      .on(SendMessageBatchCommand)
      .resolvesOnce({ Failed: [{ Id: '1', Code: 'InternalError', SenderFault: false }] })
      .resolves({ Failed: [] });
    const unsent = await new SqsCopyQueue({ client, queueUrl: QUEUE }).enqueue([message(1), message(2), message(3)]);
    expect(unsent).toEqual([]);
    const calls = sqs.commandCalls(SendMessageBatchCommand);
    expect(calls).toHaveLength(2);
    expect(JSON.parse(calls[1]!.args[0].input.Entries![0]!.MessageBody!)).toEqual(message(2));
  });

  it('hands back what SQS never takes, with its last reason, after the last attempt', async () => {
    sqs
      .on(SendMessageBatchCommand)
      .rejectsOnce(new Error('socket hang up'))
      .resolves({
        Failed: [{ Id: '0', Code: 'AWS.SimpleQueueService.Throttled', Message: 'slow down', SenderFault: false }],
      });
    const unsent = await new SqsCopyQueue({ client, queueUrl: QUEUE, attempts: 3 }).enqueue([message(1), message(2)]);
    expect(unsent).toEqual([{ message: message(1), reason: 'AWS.SimpleQueueService.Throttled: slow down' }]);
    expect(sqs.commandCalls(SendMessageBatchCommand)).toHaveLength(3);
  });

  it('reports a request that keeps failing by its error, for every message of the batch', async () => {
    sqs
      .on(SendMessageBatchCommand)
      .rejects(Object.assign(new Error('Access to the resource is denied'), { name: 'AccessDenied' }));
    const unsent = await new SqsCopyQueue({ client, queueUrl: QUEUE, attempts: 2 }).enqueue([message(1)]);
    expect(unsent).toEqual([{ message: message(1), reason: 'AccessDenied: Access to the resource is denied' }]);
  });
});
