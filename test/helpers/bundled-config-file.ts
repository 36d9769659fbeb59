/**
 * A Lambda's pulse.config.json as the stack puts it beside the bundle (src/app/bundled-config.ts), in a temporary
 * folder, for tests that call a handler with `PULSE_CONFIG_FILE` pointing at it.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUNDLED_CONFIG_FILE } from '../../src/app/bundled-config.ts';

export interface BundledConfigFile {
  path: string;
  remove(): Promise<void>;
}

export async function writeBundledConfig(raw: unknown): Promise<BundledConfigFile> {
  const dir = await mkdtemp(join(tmpdir(), 'pulse-bundle-'));
  const path = join(dir, BUNDLED_CONFIG_FILE);
  await writeFile(path, JSON.stringify(raw));
  return { path, remove: () => rm(dir, { recursive: true, force: true }) };
}
