/** Reads and validates the config; every failure is a ConfigError naming the file and the field's path. */
import { readFileSync } from 'node:fs';
import { formatPath } from '../client/shape.ts';
import { PulseConfig } from './schema.ts';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export const DEFAULT_CONFIG_PATH = 'pulse.config.json';

/** `--config`, else `$PULSE_CONFIG`, else ./pulse.config.json. */
export function configPath(flag: string | undefined, env: Record<string, string | undefined>): string {
  return flag ?? env.PULSE_CONFIG ?? DEFAULT_CONFIG_PATH;
}

export function parseConfig(value: unknown, source = 'config'): PulseConfig {
  const parsed = PulseConfig.safeParse(value);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.slice(0, 5).map((i) => `${formatPath(i.path)}: ${i.message}`);
  throw new ConfigError(`${source}: invalid configuration\n  ${lines.join('\n  ')}`);
}

export function loadConfig(path: string): PulseConfig {
  return parseConfig(readConfigJson(path), path);
}

/** The file's JSON, unvalidated (a Lambda lays the stack's names over it first); errors name the file. */
export function readConfigJson(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigError(`${path}: cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`${path}: not valid JSON (${(e as Error).message})`);
  }
}
