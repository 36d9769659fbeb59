/**
 * One channel delivery from a job (deliver-to-channel.ts), for ports that may lack channels (a runtime built
 * without them): then every channel the config names fails by name instead of being skipped in silence.
 */
import type { ChannelConfig } from '../../config/channels-schema.ts';
import type { Clock } from '../../ports/clock.ts';
import type { JobPorts } from '../../ports/job-ports.ts';
import type { Delivery } from '../delivery/deliver-once.ts';
import type { ChannelMessage } from './channel-message.ts';
import { channelLabel } from './channel-targets.ts';
import { deliverToChannel } from './deliver-to-channel.ts';

export type ChannelDeliveryPorts = Pick<JobPorts, 'ledger' | 'logger' | 'channels'> & { clock?: Clock };

export async function postOnce(
  ports: ChannelDeliveryPorts,
  key: string,
  channel: ChannelConfig,
  message: ChannelMessage,
  opts: { resendUnknown?: boolean } = {},
): Promise<Delivery> {
  if (!ports.channels) return { outcome: 'failed', error: `${channelLabel(channel)}: no channels in this runtime` };
  return deliverToChannel({ ...ports, channels: ports.channels }, key, channel, message, opts);
}
