/**
 * The CopyQueue port over SQS: SendMessageBatch, ten messages a request (SQS's limit), a few requests at a time.
 * Entries SQS refuses (throttled, internal errors) are sent again; whatever is still refused after the last attempt
 * is handed back to the caller, which records those files as failed rather than losing them.
 */
import { SendMessageBatchCommand, type SendMessageBatchRequestEntry, type SQSClient } from '@aws-sdk/client-sqs';
import { mapWithConcurrency } from '../../client/index.ts';
import type { CopyMessage, CopyQueue, Unsent } from '../../ports/copy-queue.ts';

const BATCH = 10;

export interface SqsCopyQueueOptions {
  client: SQSClient;
  queueUrl: string;
  /** Requests per batch of ten, the first included. @default 3 */
  attempts?: number;
  /** Batch requests in flight. @default 4 */
  concurrency?: number;
}

export class SqsCopyQueue implements CopyQueue {
  readonly #opts: Required<SqsCopyQueueOptions>;

  constructor(opts: SqsCopyQueueOptions) {
    this.#opts = { attempts: 3, concurrency: 4, ...opts };
  }

  async enqueue(messages: CopyMessage[]): Promise<Unsent[]> {
    const batches: CopyMessage[][] = [];
    for (let i = 0; i < messages.length; i += BATCH) batches.push(messages.slice(i, i + BATCH));
    const unsent = await mapWithConcurrency(batches, this.#opts.concurrency, (b) => this.#send(b));
    return unsent.flat();
  }

  /** Sends one batch; returns the messages still refused after the last attempt, with SQS's last word on each. */
  async #send(batch: CopyMessage[]): Promise<Unsent[]> {
    let pending = batch.map((message, i) => ({ id: String(i), message, reason: '' }));
    for (let attempt = 1; attempt <= this.#opts.attempts && pending.length > 0; attempt++) {
      const entries: SendMessageBatchRequestEntry[] = pending.map((p) => ({
        Id: p.id,
        MessageBody: JSON.stringify(p.message),
      }));
      try {
        const res = await this.#opts.client.send(
          new SendMessageBatchCommand({ QueueUrl: this.#opts.queueUrl, Entries: entries }),
        );
        const failed = new Map((res.Failed ?? []).map((f) => [f.Id, `${f.Code ?? 'refused'}: ${f.Message ?? ''}`]));
        pending = pending.filter((p) => failed.has(p.id)).map((p) => ({ ...p, reason: failed.get(p.id) ?? '' }));
      } catch (e) {
        // The whole request failed (network, throttling beyond the SDK's own retries): try the batch again.
        const reason = `${(e as Error).name}: ${(e as Error).message}`;
        pending = pending.map((p) => ({ ...p, reason }));
      }
    }
    return pending.map(({ message, reason }) => ({ message, reason }));
  }
}
