/**
 * `pulse doctor`'s line per configured channel: its secret can be read from where the config says (an environment
 * variable, a Secrets Manager secret) and holds what the kind needs (channel-endpoint.ts decides, as a run would),
 * the URL's form fits the kind (channel-url-form.ts), and which sections name the channel; one no section names is
 * a warning. Nothing is posted: a post would put a message in the channel (`--send-test` does, on request, in
 * send-test.ts). A line names the channel, its kind, where its secret is and the URL's host, never the URL's path,
 * its query or the signing secret: those are the credential.
 */
import { ChannelSecretError } from '../adapters/channel-endpoint.ts';
import { whereIs } from '../adapters/channel-secrets.ts';
import type { ChannelConfig } from '../config/channels-schema.ts';
import type { PulseConfig } from '../config/schema.ts';
import { channelLabel } from '../core/channels/channel-targets.ts';
import type { ChannelSecrets } from '../ports/channels.ts';
import { urlForm } from './channel-url-form.ts';
import { type CheckResult, explainedFail, ok, warn } from './check-result.ts';

/**
 * Why a channel check (or a test message) failed, for the exit code: `secret` the channel's secret is missing or
 * wrong (3), `answer` the channel answered with an error (4), `network` no answer (5), `other` anything else (1).
 */
export type ChannelFailureReason = 'secret' | 'answer' | 'network' | 'other';

export class ChannelCheckError extends Error {
  override name = 'ChannelCheckError';
  readonly reason: ChannelFailureReason;

  constructor(message: string, reason: ChannelFailureReason, options?: ErrorOptions) {
    super(message, options);
    this.reason = reason;
  }
}

export const UNUSED = 'configured but unused: no digest, license route, license report, notices or archive names it';
/** A deployment's channel whose secret is in the environment: the stack's functions have none (synth warns too). */
export const ENV_IN_AWS =
  'its secret comes from the environment, which the deployed functions do not have: their posts fail ("not set"); ' +
  'give it a Secrets Manager secret';

export interface ChannelCheckOptions {
  /** The config is a deployment's (a stack is named): an env-sourced secret is read here but not in AWS. */
  deployed?: boolean;
}

/** The sections that name each channel, as the config says them ("digest weekly", "licenses.routing[0]"). */
export function channelUses(config: PulseConfig): Map<string, string[]> {
  const uses = new Map<string, string[]>();
  const add = (ids: readonly string[], section: string) => {
    for (const id of ids) uses.set(id, [...(uses.get(id) ?? []), section]);
  };
  for (const d of config.digests) add(d.channels, `digest ${d.id}`);
  for (const [i, r] of (config.licenses?.routing ?? []).entries()) add(r.channels, `licenses.routing[${i}]`);
  add(config.licenses?.report?.channels ?? [], 'licenses.report');
  add(config.notices?.channels ?? [], 'notices');
  add(config.archive?.channels ?? [], 'archive');
  return uses;
}

/** One line per configured channel, in config order. */
export async function* channelChecks(
  config: PulseConfig,
  secrets: ChannelSecrets,
  opts: ChannelCheckOptions = {},
): AsyncGenerator<CheckResult> {
  const uses = channelUses(config);
  for (const channel of config.channels) yield await channelCheck(channel, secrets, uses.get(channel.id) ?? [], opts);
}

export async function channelCheck(
  channel: ChannelConfig,
  secrets: ChannelSecrets,
  usedBy: readonly string[],
  opts: ChannelCheckOptions = {},
): Promise<CheckResult> {
  const name = channelLabel(channel);
  const notes = [
    ...(usedBy.length === 0 ? [UNUSED] : []),
    ...(opts.deployed && usedBy.length > 0 && channel.secret.source === 'env' ? [ENV_IN_AWS] : []),
  ];
  const used = usedBy.length === 0 ? '' : `; used by ${usedBy.join(', ')}`;
  let url: URL;
  try {
    url = new URL((await secrets.endpointOf(channel)).url);
  } catch (e) {
    // The adapters' messages name the channel, where its secret is and the fault, never the value.
    const secretFault = e instanceof ChannelSecretError;
    const why = secretFault ? withoutChannelPrefix(e.message, channel.id) : describe(e);
    const what = `${why}: ${secretFault ? whatToPut(channel) : 'run again with --verbose for the details'}`;
    return explainedFail(
      name,
      [what, ...notes].join('; '),
      new ChannelCheckError(`${name}: ${why}`, secretFault ? 'secret' : 'other', { cause: e }),
    );
  }
  const form = urlForm(channel.kind, url);
  const detail = (extra: string[]) =>
    `host ${url.host}, secret from ${whereIs(channel)}${used}${extra.length > 0 ? `: ${extra.join('; ')}` : ''}`;
  if (form.status === 'fail') {
    return explainedFail(name, detail([form.why, ...notes]), new ChannelCheckError(`${name}: ${form.why}`, 'secret'));
  }
  const warnings = [...(form.status === 'warn' ? [form.why] : []), ...notes];
  return warnings.length > 0 ? warn(name, detail(warnings)) : ok(name, detail([]));
}

/** What a channel's secret must hold, said after a fault in it. */
function whatToPut(channel: ChannelConfig): string {
  const json = channel.kind === 'webhook' ? '{"url", "signingSecret"}' : '{"url"}';
  return `put the channel's JSON ${json} there (docs/channels.md)`;
}

/** "channel ops: environment variable … is not set" → "environment variable … is not set": the line names it. */
function withoutChannelPrefix(message: string, id: string): string {
  const prefix = `channel ${id}: `;
  return message.startsWith(prefix) ? message.slice(prefix.length) : message;
}

function describe(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}
