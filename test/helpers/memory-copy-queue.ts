/**
 * An in-process stand-in for the SQS copy queue (no SQS-compatible server runs here): it keeps the messages as SQS
 * would deliver them (id + JSON body) and can refuse chosen ones, as SQS does with failed batch entries.
 * The SQS adapter itself is tested against the SDK in test/adapters/sqs-copy-queue.test.ts.
 */
import type { CopyMessage, CopyQueue, Unsent } from '../../src/ports/copy-queue.ts';

export class MemoryCopyQueue implements CopyQueue {
  readonly messages: { id: string; body: string }[] = [];
  readonly #refuse: (m: CopyMessage) => string | undefined;
  #next = 0;

  /** `refuse` returns the reason to refuse a message, or undefined to take it. */
  constructor(refuse: (m: CopyMessage) => string | undefined = () => undefined) {
    this.#refuse = refuse;
  }

  async enqueue(messages: CopyMessage[]): Promise<Unsent[]> {
    const unsent: Unsent[] = [];
    for (const message of messages) {
      const reason = this.#refuse(message);
      if (reason !== undefined) unsent.push({ message, reason });
      else this.messages.push({ id: `m${this.#next++}`, body: JSON.stringify(message) });
    }
    return unsent;
  }

  /** Takes up to `n` messages off the queue, as one Lambda invocation's batch. */
  take(n: number): { id: string; body: string }[] {
    return this.messages.splice(0, n);
  }
}
