/** Reads and validates the config; every failure is a ConfigError naming the file and the field's path. */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { formatPath } from '../client/shape.ts';
import { issueMessage, jsonSyntaxError } from './messages.ts';
import { PulseConfig } from './schema.ts';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export const DEFAULT_CONFIG_PATH = 'pulse.config.json';

/**
 * The largest config file read: a real one is a few kB, and JSON.parse of a huge one (a 60 MB title) costs many
 * times its size in memory before the schema could refuse it.
 */
export const MAX_CONFIG_BYTES = 1024 * 1024;

/** `--config`, else `$PULSE_CONFIG`, else ./pulse.config.json. */
export function configPath(flag: string | undefined, env: Record<string, string | undefined>): string {
  return flag ?? env.PULSE_CONFIG ?? DEFAULT_CONFIG_PATH;
}

export function parseConfig(value: unknown, source = 'config'): PulseConfig {
  const parsed = PulseConfig.safeParse(value);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues
    .slice(0, 5)
    .map((i) => `${formatPath(i.path)}: ${issueMessage(i, value, PulseConfig)}`);
  throw new ConfigError(`${source}: invalid configuration\n  ${lines.join('\n  ')}`);
}

export function loadConfig(path: string): PulseConfig {
  return parseConfig(readConfigJson(path), path);
}

/**
 * The file's JSON, unvalidated (a Lambda lays the stack's names over it first); errors name the file. At most
 * MAX_CONFIG_BYTES are read (the size is checked before reading); a leading UTF-8 byte order mark is skipped.
 */
export function readConfigJson(path: string): unknown {
  const text = readConfigText(path).replace(/^\uFEFF/, '');
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`${path}: not valid JSON ${jsonSyntaxError(text, e)}`);
  }
}

function readConfigText(path: string): string {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    throw cannotRead(path, e);
  }
  try {
    const { size } = fstatSync(fd);
    if (size > MAX_CONFIG_BYTES) throw tooLarge(path, `${size} bytes`);
    // One byte more than the limit: a file that grew after the stat (or a pipe, size 0) is still caught.
    const buffer = Buffer.allocUnsafe(MAX_CONFIG_BYTES + 1);
    let length = 0;
    for (;;) {
      if (length === buffer.length) throw tooLarge(path, `more than ${MAX_CONFIG_BYTES} bytes`);
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
    }
    return buffer.toString('utf8', 0, length);
  } catch (e) {
    if (e instanceof ConfigError) throw e;
    throw cannotRead(path, e);
  } finally {
    closeSync(fd);
  }
}

function cannotRead(path: string, e: unknown): ConfigError {
  const code = (e as NodeJS.ErrnoException).code;
  const what = `${path}: cannot read (${code ?? (e as Error).message})`;
  // No --config and no $PULSE_CONFIG (configPath), and none here: say how to name one.
  if (code === 'ENOENT' && path === DEFAULT_CONFIG_PATH)
    return new ConfigError(
      `${what}: there is no ${DEFAULT_CONFIG_PATH} in this folder; name a config with --config FILE or ` +
        '$PULSE_CONFIG (a job run with --local uses the bundled example)',
    );
  return new ConfigError(what);
}

const tooLarge = (path: string, size: string) =>
  new ConfigError(`${path}: too large (${size}); a config file may have at most ${MAX_CONFIG_BYTES} bytes (1 MiB)`);
