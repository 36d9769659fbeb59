/**
 * A union of response shapes that picks its member by looking at the value, then validates against that member
 * alone. Unlike `z.union`, a mismatch keeps the full field path (`result.totals.active`), not just the union's.
 */
import * as z from 'zod';

/**
 * The members of each shapeChoice, for scripts/build-openapi.ts: the document describes the choice as any of them
 * (zod alone would see an opaque transform).
 */
export const shapeChoiceMembers = new WeakMap<z.ZodType, readonly z.ZodType[]>();

/** `options` lists every member (it gives the output type); `choose` picks the one to validate against. */
export function shapeChoice<const T extends readonly z.ZodType[]>(
  options: T,
  choose: (value: unknown) => T[number],
): z.ZodType<z.output<T[number]>> {
  const schema = z.unknown().transform((value, ctx): z.output<T[number]> => {
    const parsed = choose(value).safeParse(value);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues)
      ctx.addIssue({ code: 'custom', message: issue.message, path: [...issue.path], input: value });
    return z.NEVER;
  });
  shapeChoiceMembers.set(schema, options);
  return schema;
}

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
