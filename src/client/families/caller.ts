/** What a family module needs from the client: a validated JSON call and a raw (streamed) call. */
import type { OperationId } from '../../api/operations.ts';

export interface CallOptions {
  signal?: AbortSignal;
}

export interface Caller {
  /** Sends the operation and returns its response validated against the operation's schema. */
  json<T>(id: OperationId, productId: string | undefined, body?: unknown, opts?: CallOptions): Promise<T>;
  /** Sends the operation and returns the raw 2xx Response (for streamed bodies). */
  raw(
    id: OperationId,
    productId: string,
    body: unknown,
    opts?: CallOptions & { contentType?: string },
  ): Promise<Response>;
}

/** `null` = an empty (204) answer; `'stream'` = a streamed body returned as is. */
export type SchemaMap = Partial<Record<OperationId, import('zod').ZodType | null | 'stream'>>;
