/**
 * A channel as a delivery target beside email recipients: its "address" in ledger keys (`channel:<id>`, so every
 * job's key builder and stack grant stays as it is), its name in reports, and the configured channels a section
 * names. One delivery per (subject, channel), like one per (subject, address).
 */
import type { ChannelConfig } from '../../config/channels-schema.ts';
import type { ChannelKind } from '../../ports/channels.ts';

const ADDRESS_PREFIX = 'channel:';

/** The channel's place where an email address goes in a ledger key. */
export const channelAddress = (id: string) => `${ADDRESS_PREFIX}${id}`;

/** The channel id of a `channelAddress`; undefined for an email address. */
export const channelIdOf = (address: string): string | undefined =>
  address.startsWith(ADDRESS_PREFIX) ? address.slice(ADDRESS_PREFIX.length) : undefined;

const KIND_NAMES: Record<ChannelKind, string> = { slack: 'Slack channel', teams: 'Teams channel', webhook: 'webhook' };

/** How reports and notices name a channel: "Slack channel ops-alerts", "webhook billing-events". */
export const channelLabel = (c: { id: string; kind: ChannelKind }) => `${KIND_NAMES[c.kind]} ${c.id}`;

/** What a report or notice calls an address: the channel's label for a channelAddress, else the address. */
export function targetLabel(address: string, channels: readonly ChannelConfig[]): string {
  const id = channelIdOf(address);
  if (id === undefined) return address;
  const channel = channels.find((c) => c.id === id);
  return channel ? channelLabel(channel) : `channel ${id}`;
}

/** The configured channels `ids` names (the config loader checked that each exists), in the order named. */
export function channelsNamed(all: readonly ChannelConfig[], ids: readonly string[]): ChannelConfig[] {
  return ids.flatMap((id) => all.filter((c) => c.id === id));
}
