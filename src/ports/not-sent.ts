/**
 * A send that certainly did not reach its receiver (an SMTP reply refusing it, a chat service's 4xx, a connection
 * that was never made): sending it again later cannot make a duplicate, so the ledger claim is released. Adapters
 * throw a subclass only when they know; any other error from a send means the message may have gone out.
 */
export class NotSentError extends Error {
  override name = 'NotSentError';
}
