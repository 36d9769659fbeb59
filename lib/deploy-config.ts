/**
 * The config `cdk synth` / `cdk deploy` build the stack from. It is always named explicitly: a default file would
 * deploy whatever happens to lie in the working directory (once, the example's loopback service and SMTP sink).
 * No AWS CDK import: bin/app.ts and the tests use it alike.
 */
import { isIP } from 'node:net';
import { ConfigError, loadConfig } from '../src/config/load.ts';
import type { PulseConfig } from '../src/config/schema.ts';
import { channelSecretIds, UngrantableSecretIdError } from './stacks/channel-grants.ts';
import { archiveObjectPatterns, UnnarrowableKeyTemplateError } from './stacks/grants.ts';

export const NO_CONFIG_MESSAGE =
  'cdk synth/deploy: no Pulse config given; pass one with `npx cdk deploy -c config=FILE` or `PULSE_CONFIG=FILE npx cdk deploy`';

/** `-c config=FILE` (CDK context), else `$PULSE_CONFIG`; neither is a ConfigError saying how to pass one. */
export function deployConfigPath(context: unknown, env: Record<string, string | undefined>): string {
  if (typeof context === 'string' && context !== '') return context;
  if (env.PULSE_CONFIG) return env.PULSE_CONFIG;
  throw new ConfigError(NO_CONFIG_MESSAGE);
}

/** Loads the config and refuses one a Lambda in AWS could not, or must not, use. */
export function loadDeployConfig(path: string): PulseConfig {
  const config = loadConfig(path);
  const problem = undeployableBaseUrl(config.service.baseUrl);
  if (problem) throw new ConfigError(`${path}: service.baseUrl: ${problem}`);
  try {
    // What the functions' rights are made of: refused here, naming the file, rather than as a synth stack trace.
    if (config.archive)
      archiveObjectPatterns(
        config.archive,
        config.products.map((p) => p.id),
      );
    channelSecretIds(config.channels);
  } catch (e) {
    if (e instanceof UnnarrowableKeyTemplateError || e instanceof UngrantableSecretIdError)
      throw new ConfigError(`${path}: ${e.message}`);
    throw e;
  }
  return config;
}

/**
 * Why the functions must not call this service URL, or undefined. Plain http sends the credentials and the reports
 * in clear text across networks Pulse does not control; a loopback address in Lambda is the function itself.
 */
export function undeployableBaseUrl(baseUrl: string): string | undefined {
  const url = new URL(baseUrl);
  if (url.protocol !== 'https:') return `${url.protocol}// is not deployable: the service must be reached over https`;
  if (isLoopback(url.hostname))
    return `${url.hostname} is a loopback address, which in AWS is the function itself: give the service's real host`;
  return undefined;
}

/** URL host names are already normalized: `127.1`, `0x7f.1` and `2130706433` arrive as `127.0.0.1`, IPv6 bracketed. */
function isLoopback(hostname: string): boolean {
  const host = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, ''); // `localhost.` is localhost
  if (host === 'localhost' || host.endsWith('.localhost')) return true; // RFC 6761: all of .localhost is loopback
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1' || /^::ffff:(7f[0-9a-f]{2}:|127\.)/.test(host);
  return false;
}
