/**
 * Response validation. Documented shapes are checked strictly, open points loosely (api-shapes §14); members the
 * service adds are kept, never dropped (loose objects). A mismatch names the operation and the bad field's path.
 */
import type { z } from 'zod';
import { ResponseShapeError } from './errors.ts';

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

export async function readJson(operationId: string, res: Response): Promise<unknown> {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new ResponseShapeError('response body is not JSON', { operationId, path: '(body)' });
  }
}
