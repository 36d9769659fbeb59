/**
 * Refusing members a write does not define, so nothing a client sent is dropped without a word (docs/interface.md
 * "License key registry"): the 400 names the member and the known one it most likely means.
 */
import { closestMatch } from 'leven';
import { at, fail, type Json } from './validate.ts';

/**
 * The known name an unknown one likely means: one containing the other (`installQuota` → `quota`, `status` →
 * `licenseStatus`), else the nearest of those sharing its longest start of 4 or more letters (`active` →
 * `activated`), else the nearest by edit distance within a third of its length (`licenceKey` → `licenseKey`).
 */
export function likelyMeant(name: string, known: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  const containing = known.filter((k) => lower.includes(k.toLowerCase()) || k.toLowerCase().includes(lower));
  if (containing.length > 0) return closestMatch(name, containing);
  const start = (k: string) => {
    let n = 0;
    while (n < k.length && n < lower.length && k[n]!.toLowerCase() === lower[n]) n++;
    return n;
  };
  const longest = Math.max(...known.map(start));
  if (longest >= 4)
    return closestMatch(
      name,
      known.filter((k) => start(k) === longest),
    );
  return closestMatch(name, known, { maxDistance: Math.max(2, Math.floor(name.length / 3)) });
}

/**
 * Fails with a 400 naming the first member of `o` that is neither in `known` nor in `ignored` (read-only members the
 * interface documents as ignored): `keyUpdates[0].installQuota: unknown field (did you mean quota?)`.
 */
export function onlyKnownFields(
  o: Json,
  path: string,
  known: readonly string[],
  ignored: readonly string[] = [],
  what = 'field',
): void {
  for (const key of Object.keys(o)) {
    if (known.includes(key) || ignored.includes(key)) continue;
    const meant = likelyMeant(key, known);
    fail(
      at(path, key),
      meant === undefined ? `unknown ${what}; known: ${known.join(', ')}` : `unknown ${what} (did you mean ${meant}?)`,
    );
  }
}
