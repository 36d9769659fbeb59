/**
 * Response validation. Documented shapes are checked strictly, open points loosely (api-shapes §14); members the
 * service adds are kept, never dropped (loose objects). A mismatch names the operation and the bad field's path.
 */
import type { z } from 'zod';
import { ResponseShapeError, TimeoutError } from './errors.ts';

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
 * Reads a JSON body before `deadline` (epoch ms). The attempt timeout only covers the response headers, so a body
 * that stalls afterwards would otherwise hang the call past its deadline.
 */
export async function readJson(operationId: string, res: Response, deadline: number): Promise<unknown> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stalled = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => {
        res.body?.cancel().catch(() => {});
        reject(new TimeoutError('the response body did not complete within the call deadline', { operationId }));
      },
      Math.max(0, deadline - Date.now()),
    );
  });
  let text: string;
  try {
    text = await Promise.race([res.text(), stalled]);
  } finally {
    clearTimeout(timer);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new ResponseShapeError('response body is not JSON', { operationId, path: '(body)' });
  }
}
