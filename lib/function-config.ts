/**
 * The part of pulse.config.json each function gets in its bundle (docs/aws.md "Config delivery"): the sections
 * its job reads and nothing else, so a copier never holds a digest recipient's address and a config with many
 * recipients costs only the functions that mail them. No AWS CDK import: the tests check the parts directly.
 */
import type { PulseConfig } from '../src/config/schema.ts';

type Section = Exclude<keyof PulseConfig, '$schema' | 'state' | 'deploy'>;

/**
 * Sections per function (`functions/<job>/`). `mail` (the sender and transport, no recipients) is in every part
 * because the schema requires it; `state` and the archive's bucket come from the environment (CloudFormation names
 * them), the credentials from the stack's secret; `deploy` is read by the CDK app only.
 */
export const FUNCTION_CONFIG_SECTIONS = {
  // Either step may finish a run and tell `archive.channels` of it: both carry `channels`.
  'archive-plan': ['service', 'products', 'mail', 'archive', 'channels'],
  'archive-copy': ['service', 'products', 'mail', 'archive', 'channels'],
  // Reads only the archive (its prefix); service, products and mail only because the schema requires them.
  'archive-verify': ['service', 'products', 'mail', 'archive'],
  // The posting functions carry `channels` (ids, kinds, where each secret is; never a URL) and `notices` (the owner
  // notices' channels): the schema checks every channel a section names is configured.
  digest: ['service', 'products', 'mail', 'archive', 'digests', 'channels', 'notices'],
  'license-alerts': ['service', 'products', 'mail', 'licenses', 'channels', 'notices'],
  'license-report': ['service', 'products', 'mail', 'archive', 'licenses', 'channels', 'notices'],
  // The rules and the channels they post to, and the archive (its prefix: where each run's evidence is kept); no
  // notices (it sends the owners none).
  'usage-alerts': ['service', 'products', 'mail', 'archive', 'usageAlerts', 'channels'],
  // The sync reads the archive's prefix and the products; it sends nothing, so no license recipients.
  'license-sync': ['service', 'products', 'mail', 'archive'],
  // The owners of what bounced (digests[].owner, licenses.owner, usageAlerts.rules[].owner) and the names its notices give each delivery;
  // service and products only because the schema requires them (it calls no service).
  'mail-events': ['service', 'products', 'mail', 'digests', 'licenses', 'usageAlerts', 'channels', 'notices'],
} as const satisfies Record<string, readonly Section[]>;

export type PulseFunctionName = keyof typeof FUNCTION_CONFIG_SECTIONS;

/**
 * The config file of one function: its sections, credentials from the stack's secret (named here; the functions
 * use its exact ARN from the environment), never from the environment variables a local run reads.
 */
export function functionConfig(job: PulseFunctionName, config: PulseConfig, secretName: string): Partial<PulseConfig> {
  const part: Partial<Record<Section, unknown>> = {};
  for (const section of FUNCTION_CONFIG_SECTIONS[job])
    if (config[section] !== undefined) part[section] = config[section];
  part.service = { ...config.service, credentials: { source: 'secretsManager', secretId: secretName } };
  // A function that posts nothing gets no channels, so no section of its part may name one (the schema checks).
  const sections: readonly Section[] = FUNCTION_CONFIG_SECTIONS[job];
  if (config.archive && !sections.includes('channels')) part.archive = { ...config.archive, channels: [] };
  return part as Partial<PulseConfig>;
}
