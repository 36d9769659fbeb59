/**
 * The config of a Lambda: its part of pulse.config.json, written into its bundle at synth (lib/function-config.ts,
 * docs/aws.md "Config delivery"), so it is versioned with the code and needs no call, grant or size limit. Read
 * and validated once per container; what only CloudFormation knows comes from the environment.
 */
import { parseConfig, readConfigJson } from '../config/load.ts';
import type { PulseConfig } from '../config/schema.ts';

/** The file's name next to the bundle's index.mjs. */
export const BUNDLED_CONFIG_FILE = 'pulse.config.json';
/** Where Lambda unpacks the bundle. */
export const DEFAULT_CONFIG_FILE = `/var/task/${BUNDLED_CONFIG_FILE}`;

type Env = Record<string, string | undefined>;

const cache = new Map<string, PulseConfig>();

/**
 * `$PULSE_CONFIG_FILE` (default /var/task/pulse.config.json), with the stack's names laid over it:
 * `PULSE_STATE_TABLE`, `PULSE_ARCHIVE_BUCKET`, the credentials secret's ARN `PULSE_SERVICE_SECRET_ARN` and the SES
 * configuration set `PULSE_SES_CONFIGURATION_SET` (an SES transport's; an SMTP transport has none to take it).
 * Errors are ConfigErrors naming the file and the field.
 */
export function configFromBundle(env: Env): PulseConfig {
  const path = env.PULSE_CONFIG_FILE || DEFAULT_CONFIG_FILE;
  const { PULSE_STATE_TABLE: table, PULSE_ARCHIVE_BUCKET: bucket, PULSE_SERVICE_SECRET_ARN: secretArn } = env;
  const configurationSet = env.PULSE_SES_CONFIGURATION_SET;
  const key = JSON.stringify([path, table, bucket, secretArn, configurationSet]);
  const cached = cache.get(key);
  if (cached) return cached;
  const json = readConfigJson(path);
  // Not an object: parseConfig says so, naming the file.
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return parseConfig(json, path);
  const raw = { ...(json as Record<string, unknown>) };
  if (bucket) raw.archive = { ...(raw.archive as object), bucket };
  if (table) raw.state = { tableName: table };
  if (secretArn)
    raw.service = { ...(raw.service as object), credentials: { source: 'secretsManager', secretId: secretArn } };
  const mail = raw.mail as { transport?: { kind?: unknown } } | undefined;
  // The schema's default transport is SES, so a mail section without one takes the set too.
  if (configurationSet && (mail?.transport === undefined || mail.transport.kind === 'ses'))
    raw.mail = { ...mail, transport: { kind: 'ses', ...mail?.transport, configurationSet } };
  const config = parseConfig(raw, path);
  cache.set(key, config);
  return config;
}
