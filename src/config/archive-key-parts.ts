/**
 * Which strings may become part of an archive object key: the character half of the archive key rule. The config
 * checks `archive.prefix` and `archive.keyTemplate` with it at load (a named field error); src/core/archive-key.ts
 * checks every key Pulse builds with it again. It lives here, with the config, because the config is read by
 * everything (lib/ included) and so imports nothing of the jobs or their shared room.
 */

/** The placeholders of `archive.keyTemplate`. */
export const KEY_PLACEHOLDERS = ['prefix', 'product', 'kind', 'yyyy', 'mm', 'dd', 'fileName'] as const;
const PLACEHOLDER = /<([^<>]*)>/g;

/**
 * Why a part of a key is unsafe (a prefix, an id, a template with its placeholders filled), or undefined. Parts may
 * be empty and may end in `/`; everything in them must be printable ASCII.
 */
export function unsafeKeyPartReason(part: string): string | undefined {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(part)) return 'contains a control character';
  if (/[^\x20-\x7e]/.test(part)) return 'contains a non-ASCII character';
  if (/[<>]/.test(part)) return 'contains "<" or ">" (a placeholder left unfilled?)';
  if (part.startsWith('/')) return 'starts with "/" (an absolute path)';
  if (part.split('/').some((s) => s === '..' || s === '.')) return 'has a "." or ".." segment';
  if (part.includes('\\')) return 'contains a backslash';
  return undefined;
}

/**
 * Why a key template is unsafe, or undefined: only known placeholders, and with them filled, a safe part that does
 * not end in `/`. (`archiveKey` checks the filled-in key again with the real values.)
 */
export function unsafeTemplateReason(template: string): string | undefined {
  const unknown = [...template.matchAll(PLACEHOLDER)].find(
    (m) => !(KEY_PLACEHOLDERS as readonly string[]).includes(m[1] ?? ''),
  );
  if (unknown)
    return `has an unknown placeholder ${unknown[0]} (known: ${KEY_PLACEHOLDERS.map((p) => `<${p}>`).join(' ')})`;
  const filled = template.replace(PLACEHOLDER, 'x');
  return unsafeKeyPartReason(filled) ?? (filled.endsWith('/') ? 'ends with "/"' : undefined);
}
