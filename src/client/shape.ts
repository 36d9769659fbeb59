/**
 * Response validation. Documented shapes are checked strictly, open questions loosely
 * (docs/interface.md "Open questions"); members the service adds are kept, never dropped (loose objects). A mismatch
 * names the operation and the bad field's path.
 */
import type { z } from 'zod';
import { NetworkError, ResponseShapeError, TimeoutError } from './errors.ts';

/** `result.level1['4.2'].totals.active`, `result[3].bin` */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && /^[A-Za-z_$][\w$]*$/.test(key)) out += out ? `.${key}` : key;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out || '(root)';
}

export function validateResponse<S extends z.ZodType>(operationId: string, schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const path = formatPath(issue.path);
  throw new ResponseShapeError(`response does not match the documented shape at ${path}: ${issue.message}`, {
    operationId,
    path,
  });
}

/**
 * The largest JSON response read (32 MiB): a service answering more (a broken or hostile one) gets a
 * ResponseShapeError, not the process's memory. The largest documented page is far below it.
 */
export const MAX_JSON_BODY_BYTES = 32 * 1024 * 1024;

/**
 * Reads a body as UTF-8 text before `deadline` (epoch ms), at most `maxBytes`: beyond it, `tooLarge` decides
 * (`'truncate'`: the text read so far; `'throw'`: a ResponseShapeError). The attempt timeout only covers the
 * response headers, so a body that stalls afterwards would otherwise hang the call past its deadline.
 */
export async function readBodyText(
  operationId: string,
  res: Response,
  deadline: number,
  maxBytes: number,
  tooLarge: 'truncate' | 'throw',
): Promise<string> {
  if (!res.body) return '';
  const tooLargeError = () =>
    new ResponseShapeError(`response body larger than ${maxBytes} bytes`, { operationId, path: '(body)' });
  const declared = Number(res.headers.get('content-length') ?? Number.NaN);
  if (tooLarge === 'throw' && declared > maxBytes) {
    await res.body.cancel().catch(() => {});
    throw tooLargeError();
  }
  const reader = res.body.getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stalled = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => {
        reader.cancel().catch(() => {});
        reject(new TimeoutError('the response body did not complete within the call deadline', { operationId }));
      },
      Math.max(0, deadline - Date.now()),
    );
  });
  const chunks: Uint8Array[] = [];
  let size = 0;
  // A body cut off (connection reset, fewer bytes than announced) is a network failure, named as one.
  const read = () =>
    reader.read().catch((cause: unknown) => {
      throw new NetworkError('the response body was cut off', { operationId, cause });
    });
  try {
    for (;;) {
      const { done, value } = await Promise.race([read(), stalled]);
      if (done) break;
      if (size + value.byteLength > maxBytes) {
        reader.cancel().catch(() => {});
        if (tooLarge === 'throw') throw tooLargeError();
        chunks.push(value.subarray(0, maxBytes - size));
        break;
      }
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    clearTimeout(timer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Reads a JSON body (at most MAX_JSON_BODY_BYTES) before `deadline` (epoch ms). */
export async function readJson(
  operationId: string,
  res: Response,
  deadline: number,
  maxBytes = MAX_JSON_BODY_BYTES,
): Promise<unknown> {
  const text = await readBodyText(operationId, res, deadline, maxBytes, 'throw');
  try {
    return JSON.parse(text);
  } catch {
    throw new ResponseShapeError('response body is not JSON', { operationId, path: '(body)' });
  }
}
