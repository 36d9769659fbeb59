/**
 * Files a Pulse function's bundle gets besides its code: the compiled email templates and its part of the config.
 * Copied in by the bundling's afterBundling hook, so they are in the asset whose hash versions the function.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** One file for the bundle: absolute source path → path inside the asset. */
export type BundleFile = readonly [from: string, to: string];

/** A POSIX shell word that stays literal whatever the text holds (`$`, quotes, spaces). */
const shellWord = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

/** The shell commands that copy `files` into the bundle's `output` directory. */
export function copyCommands(files: readonly BundleFile[], output: string): string[] {
  return files.map(([from, to]) => {
    const target = join(output, to);
    return `mkdir -p ${shellWord(join(target, '..'))} && cp ${shellWord(from)} ${shellWord(target)}`;
  });
}

/**
 * `json` written where the bundling can copy it from: a file named by its SHA-256 in the temp directory (the same
 * config, the same file; readable by this user only, it holds recipients' addresses). Named by content, the copy
 * command differs with the config, and so does the key under which CDK reuses a bundle made earlier in the same
 * process. A file, not the text in the command: the hook's commands run as one `bash -c` argument, which Linux caps
 * at 128 KB.
 */
export function stageJsonFile(json: string): { path: string; sha256: string } {
  const sha256 = createHash('sha256').update(json).digest('hex');
  const dir = join(tmpdir(), 'pulse-function-config');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, `${sha256}.json`);
  writeFileSync(path, json, { mode: 0o600 });
  return { path, sha256 };
}
