/**
 * The security suites' search for secrets in every trace a run leaves (test/security/secrets-everywhere.test.ts for
 * the service password and tokens, channel-secrets-everywhere.test.ts for channel URLs and signing secrets): each
 * find is named with where it was and the text around it, so a failure says what leaked it.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

/** Adds a line to `found` for each of `secrets` in `text`. */
export function leaksIn(secrets: readonly string[], where: string, text: string | Buffer, found: string[]): void {
  const haystack = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  for (const s of secrets) {
    const at = haystack.indexOf(Buffer.from(s, 'utf8'));
    if (at < 0) continue;
    const around = haystack.subarray(Math.max(0, at - 80), at + Buffer.byteLength(s) + 20).toString('utf8');
    found.push(`${where}: ${s.slice(0, 12)}… in …${around}…`);
  }
}

export async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

/** Every file's bytes searched, gzip files also decompressed. */
export async function leaksInFiles(secrets: readonly string[], files: string[], found: string[]): Promise<void> {
  for (const file of files) {
    const bytes = await readFile(file);
    leaksIn(secrets, file, bytes, found);
    if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
      try {
        leaksIn(secrets, `${file} (gunzipped)`, gunzipSync(bytes), found);
      } catch {
        // not a whole gzip stream (a LevelDB block that happens to start so): its raw bytes were searched
      }
    }
  }
}
