/**
 * The channel ports of a run against real services (the CLI without `--local`, every Lambda): each channel's secret
 * read from where the config says (Secrets Manager, or the environment), posted over HTTPS. Local runs post to the
 * local channel sinks instead (src/adapters/local/channel-sink.ts).
 */
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { EnvChannelSecrets, SecretsManagerChannelSecrets } from '../adapters/channel-secrets.ts';
import { HttpChannelPoster } from '../adapters/http/channel-poster.ts';
import type { ChannelPorts, ChannelRef, ChannelSecrets } from '../ports/channels.ts';

/** Reads each channel's secret from the source its config names. */
class ConfiguredChannelSecrets implements ChannelSecrets {
  readonly #env: EnvChannelSecrets;
  readonly #secretsManager: SecretsManagerChannelSecrets;

  constructor(secrets: SecretsManagerClient, env: NodeJS.ProcessEnv) {
    this.#env = new EnvChannelSecrets(env);
    this.#secretsManager = new SecretsManagerChannelSecrets(secrets);
  }

  endpointOf(channel: ChannelRef) {
    return (channel.secret.source === 'env' ? this.#env : this.#secretsManager).endpointOf(channel);
  }
}

export function channelPortsFor(secrets: SecretsManagerClient, env: NodeJS.ProcessEnv = process.env): ChannelPorts {
  return { secrets: new ConfiguredChannelSecrets(secrets, env), poster: new HttpChannelPoster() };
}
