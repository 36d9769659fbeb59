/**
 * Ports that live as long as the Lambda container: made on the first invocation, handed to every warm one. The key
 * is the config object (cached per container by bundled-config.ts) and the environment the SDK and the runtime read,
 * so a test that changes either gets fresh ports, like a new container; one that re-imports the modules
 * (`vi.resetModules`) gets fresh caches with them. No SDK import here: every runtime module may use it.
 */
import type { PulseConfig } from '../../config/schema.ts';

type Env = Record<string, string | undefined>;

const scopes = new WeakMap<PulseConfig, Map<string, unknown>>();
/** Environment variables that decide what a port is (SDK endpoints, region, credentials; the stack's names; level). */
const RELEVANT_ENV = /^(AWS_|PULSE_|POWERTOOLS_|LOG_LEVEL$)/;

/** `create()`'s value for this config and environment, made once per container. */
export function perContainer<T>(config: PulseConfig, env: Env, name: string, create: () => T): T {
  const scope = scopes.get(config) ?? new Map<string, unknown>();
  scopes.set(config, scope);
  const relevant = Object.entries(env).filter(([k, v]) => v !== undefined && RELEVANT_ENV.test(k));
  const key = `${name}\n${JSON.stringify(relevant.sort(([a], [b]) => (a < b ? -1 : 1)))}`;
  if (scope.has(key)) return scope.get(key) as T;
  const value = create();
  scope.set(key, value);
  return value;
}
