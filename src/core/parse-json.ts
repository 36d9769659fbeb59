/** JSON that Pulse reads back from its own storage and queues, checked against a schema before use. */
import type * as z from 'zod';
import { formatPath } from '../client/shape.ts';

/**
 * JSON text checked against `schema`, for what Pulse reads back from its own storage and queue; `fail` turns what is
 * wrong ("is not valid JSON", or the first bad field's path and why) into the caller's named error.
 */
export function parseJsonAs<S extends z.ZodType>(
  text: string,
  schema: S,
  fail: (problem: string) => Error,
): z.output<S> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw fail('is not valid JSON');
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw fail(`is malformed at ${formatPath(issue?.path ?? [])}: ${issue?.message ?? ''}`);
}
