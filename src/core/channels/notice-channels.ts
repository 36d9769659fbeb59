/**
 * Owner notices in channels (`notices.channels`): each notice the owner gets by email (a digest held, a delivery
 * whose outcome is unknown, a bounce or complaint) is also posted to every notice channel, at most once per
 * (notice, channel) under `<the notice's ledger key>#channel:<id>`, so the jobs' ledger grants cover it. Returns
 * one line per channel the notice did not reach (a notice that failed is reported, not retried blindly).
 */

import type { ChannelConfig } from '../../config/channels-schema.ts';
import { deliveredOrUnderWay } from '../delivery/delivery-tally.ts';
import type { ChannelMessage } from './channel-message.ts';
import { channelAddress, channelLabel } from './channel-targets.ts';
import { type ChannelDeliveryPorts, postOnce } from './post-once.ts';

export async function postNotice(
  ports: ChannelDeliveryPorts,
  channels: readonly ChannelConfig[],
  noticeKey: string,
  message: ChannelMessage,
): Promise<string[]> {
  const problems: string[] = [];
  for (const channel of channels) {
    const sent = await postOnce(ports, `${noticeKey}#${channelAddress(channel.id)}`, channel, message);
    if (deliveredOrUnderWay(sent)) continue;
    problems.push(`notice to ${channelLabel(channel)}: ${sent.outcome}: ${sent.error ?? ''}`);
  }
  return problems;
}

/** The notice channels of a config (none when `notices` is absent). */
export const noticeChannelsOf = (config: {
  channels: readonly ChannelConfig[];
  notices?: { channels: readonly string[] } | undefined;
}): ChannelConfig[] => {
  const ids = new Set(config.notices?.channels ?? []);
  return config.channels.filter((c) => ids.has(c.id));
};

/** The message of an owner notice, from what its email says: heading, the sentences, and the commands to run. */
export function noticeMessage(
  event: ChannelMessage['event'],
  notice: { title: string; summary: string; lines: string[]; facts: { label: string; value: string }[] },
  data: Record<string, unknown>,
  now: Date,
): ChannelMessage {
  return { event, ...notice, sections: [], occurredAt: now.toISOString(), data };
}
