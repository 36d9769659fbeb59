/** File names the local adapters derive from outside input (recipient addresses, page names): never a path. */

/** A file-name fragment from an address: letters, digits and `@._+-` only, no leading dots, at most 64 characters. */
export function safeFileFragment(address: string): string {
  const cleaned = address
    .toLowerCase()
    .replace(/[^a-z0-9@._+-]+/g, '_')
    .replace(/^[._]+/, '')
    .slice(0, 64);
  return cleaned === '' ? 'unknown' : cleaned;
}
