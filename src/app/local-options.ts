/**
 * What the CLI reads for a `--local` run before anything starts: the bundled example config and
 * `$PULSE_LOCAL_EMULATOR`. Apart from local-runtime.ts, so that reading them loads none of the local peers.
 */
import type { EmulatorOptions } from '../../emulator/index.ts';
import { ConfigError } from '../config/load.ts';

export const EXAMPLE_CONFIG = new URL('../../examples/pulse.config.json', import.meta.url).pathname;

export const LOCAL_EMULATOR_ENV = 'PULSE_LOCAL_EMULATOR';
const LOCAL_EMULATOR_OPTIONS = ['seed', 'clients', 'today'] as const;

/** The emulator options in `$PULSE_LOCAL_EMULATOR` (a JSON object), validated when the emulator starts. */
export function localEmulatorOptions(env: Record<string, string | undefined>): EmulatorOptions | undefined {
  const text = env[LOCAL_EMULATOR_ENV];
  if (text === undefined || text === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError(`$${LOCAL_EMULATOR_ENV}: expected a JSON object such as {"clients": 50000}`);
  }
  const unknown = Object.keys(value).filter((k) => !(LOCAL_EMULATOR_OPTIONS as readonly string[]).includes(k));
  if (unknown.length > 0) {
    throw new ConfigError(`$${LOCAL_EMULATOR_ENV}: unknown option ${unknown[0]}; one of ${LOCAL_EMULATOR_OPTIONS}`);
  }
  return value as EmulatorOptions;
}
