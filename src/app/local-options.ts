/**
 * What the CLI reads for a `--local` run before anything starts: the bundled example config,
 * `$PULSE_LOCAL_EMULATOR`, `$PULSE_LOCAL_S3_PART_SIZE`, `$PULSE_LOCAL_BOUNCE` and `$PULSE_LOCAL_COMPLAIN`, and the
 * products the config names, for the emulator to serve. Apart from local-runtime.ts, so that reading them loads none
 * of the local peers.
 */

import type { EmulatorOptions, ProductSpec } from '../../emulator/index.ts';
import type { ChannelFaultProfile } from '../adapters/local/channel-faults.ts';
import type { SinkReaction } from '../adapters/local/sink-mail-events.ts';
import { ConfigError } from '../config/load.ts';
import { Email, type PulseConfig } from '../config/schema.ts';

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

/**
 * The products the config names, for the in-process emulator to serve with a data set of their own: every id the
 * digests, the archive and the license jobs use is among `products` (the schema checks it), so an analytics owner can
 * preview their own products before any deploy. The bundled example's products are the emulator's built-in ones,
 * whose data stays as it is.
 */
export function emulatorProductsOf(config: Pick<PulseConfig, 'products'>): ProductSpec[] {
  // The schema lets an id be listed twice; the emulator serves each once (the first entry's name).
  const firsts = config.products.filter((p, i) => config.products.findIndex((q) => q.id === p.id) === i);
  return firsts.map((p) => ({ productId: p.id, ...(p.name ? { productName: p.name } : {}) }));
}

export const LOCAL_S3_PART_SIZE_ENV = 'PULSE_LOCAL_S3_PART_SIZE';
const MIN_LOCAL_PART_SIZE = 1024;
const MAX_PART_SIZE = 5 * 1024 ** 3;

/**
 * `$PULSE_LOCAL_S3_PART_SIZE`: the local archive's multipart part size in bytes. The local S3 (s3rver) takes parts
 * below S3's 5 MiB minimum, so a small value sends the emulator's small export files through the multipart upload
 * (UploadPart, CompleteMultipartUpload) that real archives of big files take; the chaos runs use it.
 */
export function localS3PartSize(env: Record<string, string | undefined>): number | undefined {
  const text = env[LOCAL_S3_PART_SIZE_ENV];
  if (text === undefined || text === '') return undefined;
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < MIN_LOCAL_PART_SIZE || n > MAX_PART_SIZE) {
    throw new ConfigError(
      `$${LOCAL_S3_PART_SIZE_ENV}: expected a part size in bytes from ${MIN_LOCAL_PART_SIZE} to ${MAX_PART_SIZE}, got ${JSON.stringify(text)}`,
    );
  }
  return n;
}

export const LOCAL_BOUNCE_ENV = 'PULSE_LOCAL_BOUNCE';
export const LOCAL_COMPLAIN_ENV = 'PULSE_LOCAL_COMPLAIN';

/**
 * `$PULSE_LOCAL_BOUNCE` and `$PULSE_LOCAL_COMPLAIN`: comma-separated addresses whose messages the local SMTP sink
 * accepts and then bounces for good, or reports as spam, as SES would publish it; the run then hands those events
 * to the mail-events job (record, suppress, tell the owner). Undefined when neither is set.
 */
export function localMailReactions(env: Record<string, string | undefined>): Record<string, SinkReaction> | undefined {
  const reactions: Record<string, SinkReaction> = {};
  for (const [name, reaction] of [
    [LOCAL_BOUNCE_ENV, 'bounce'],
    [LOCAL_COMPLAIN_ENV, 'complaint'],
  ] as const) {
    for (const item of (env[name] ?? '').split(',')) {
      const address = item.trim();
      if (address === '') continue;
      if (!Email.safeParse(address).success)
        throw new ConfigError(`$${name}: ${JSON.stringify(address)} is not an email address (a comma-separated list)`);
      const other = reactions[address.toLowerCase()];
      if (other !== undefined && other !== reaction)
        throw new ConfigError(`$${name}: ${address} is also in $${LOCAL_BOUNCE_ENV}: one reaction per address`);
      reactions[address.toLowerCase()] = reaction;
    }
  }
  return Object.keys(reactions).length > 0 ? reactions : undefined;
}

/** The channel sinks' random fault profile of a local run, as JSON `{"seed", "rate", "kinds"}` (the chaos runner). */
export const LOCAL_CHANNEL_FAULTS_ENV = 'PULSE_LOCAL_CHANNEL_FAULTS';

const CHANNEL_FAULT_KINDS = ['rateLimit', 'serverError', 'refuse', 'timeout', 'drop'] as const;

export function localChannelFaults(env: Record<string, string | undefined>): ChannelFaultProfile | undefined {
  const text = env[LOCAL_CHANNEL_FAULTS_ENV];
  if (text === undefined || text.trim() === '') return undefined;
  const bad = () =>
    new ConfigError(
      `$${LOCAL_CHANNEL_FAULTS_ENV}: not a fault profile; expected JSON {"seed": 1, "rate": 0.3, "kinds": [${CHANNEL_FAULT_KINDS.map((k) => `"${k}"`).join(', ')}]}`,
    );
  let parsed: { seed?: unknown; rate?: unknown; kinds?: unknown };
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    throw bad();
  }
  const { seed, rate, kinds } = parsed ?? {};
  if (
    !Number.isInteger(seed) ||
    typeof rate !== 'number' ||
    rate < 0 ||
    rate > 1 ||
    !Array.isArray(kinds) ||
    kinds.length === 0 ||
    !kinds.every((k) => (CHANNEL_FAULT_KINDS as readonly unknown[]).includes(k))
  ) {
    throw bad();
  }
  return { seed: seed as number, rate, kinds: kinds as ChannelFaultProfile['kinds'] };
}
