/**
 * Tells the archive's channels (`archive.channels`) that a run finished, once its manifest is written: one message
 * per (run, channel) under `archive-event#<run id>#channel:<id>`, on the path every channel delivery takes (Slack and
 * Teams at most once, webhooks at least once with one `webhook-id`).
 *
 * The manifest records the channels it is announced to. A finisher can die between writing the manifest and posting
 * (a copier's Lambda timing out), and a webhook can stay down past its attempts, so every finish first announces the
 * last runs before it again, newest first: a delivered event is `alreadySent` (one ledger call), a webhook's is
 * posted again under the same id, a chat post already unknown is not repeated.
 */

import type { ChannelConfig } from '../config/channels-schema.ts';
import type { PulseConfig } from '../config/schema.ts';
import { channelAddress, channelLabel } from '../core/channels/channel-targets.ts';
import { type ChannelDeliveryPorts, postOnce } from '../core/channels/post-once.ts';
import type { Delivery } from '../core/delivery/deliver-once.ts';
import { deliveredOrUnderWay } from '../core/delivery/delivery-tally.ts';
import { archiveEventLedgerKey } from '../core/delivery/ledger-keys.ts';
import type { ArchiveStore } from '../ports/archive-store.ts';
import { coverageKey } from './coverage.ts';
import { type ManifestLink, readManifest } from './manifest.ts';
import { type AnnouncedRun, archiveRunMessage } from './run-message.ts';

/** Runs before this one looked at again, at most: a week of daily runs. */
export const CATCH_UP_RUNS = 7;

/** What announcing needs; a runtime without a ledger or channels fails each channel by name. */
export type AnnouncePorts = Partial<ChannelDeliveryPorts> & Pick<ChannelDeliveryPorts, 'logger'>;

/**
 * The channels a run's manifest names that `archive.channels` still names: one taken out of it is not told of older
 * runs either (the functions' rights follow `archive.channels`: lib/stacks/channel-grants.ts).
 */
export function archiveChannels(config: AnnounceConfig, ids: readonly string[]): ChannelConfig[] {
  return config.channels.filter((c) => ids.includes(c.id) && config.archive.channels.includes(c.id));
}

/** What announcing reads of the config: the channels, the product names, and `archive.channels` and its prefix. */
export type AnnounceConfig = Pick<PulseConfig, 'channels' | 'products'> & {
  archive: { prefix: string; channels: readonly string[] };
};

/** Posts the run to each channel its manifest names; one line per channel not reached. */
export async function announceRun(config: AnnounceConfig, ports: AnnouncePorts, run: AnnouncedRun): Promise<string[]> {
  const problems: string[] = [];
  for (const { channel, delivery } of await postRun(config, ports, run)) {
    if (!deliveredOrUnderWay(delivery))
      problems.push(
        `run ${run.manifest.runId} to ${channelLabel(channel)}: ${delivery.outcome}: ${delivery.error ?? ''}`,
      );
  }
  return problems;
}

/**
 * Announces the runs before this one whose event some channel has not taken yet, starting from the manifest
 * `previous` links to: each of the last CATCH_UP_RUNS runs, whatever the runs between them got (a run told while an
 * older one failed again must not hide the older one), stopping early at a run that named no channels (runs before
 * the archive had any) or at a manifest it cannot read. A run told already costs one ledger call per channel. Unknown chat posts stay unknown (they
 * were reported when they happened); what fails again is returned, one line per run and channel.
 */
export async function announceEarlierRuns(
  config: AnnounceConfig,
  ports: AnnouncePorts & { archive: ArchiveStore },
  previous: ManifestLink | null,
): Promise<string[]> {
  const problems: string[] = [];
  let link = previous;
  for (let n = 0; link !== null && n < CATCH_UP_RUNS; n++) {
    const manifest = await readManifest(ports.archive, link.key).catch((e: unknown) => {
      ports.logger.warn('archive events: an earlier manifest was not read', { key: link?.key, error: String(e) });
      return undefined;
    });
    if (!manifest || (manifest.channels ?? []).length === 0) break;
    const run = {
      manifest,
      manifestKey: link.key,
      coverageKey: coverageKey(config.archive.prefix, manifest.runId),
    };
    for (const { channel, delivery } of await postRun(config, ports, run)) {
      if (delivery.outcome === 'sent')
        ports.logger.info('archive event delivered late', { runId: manifest.runId, channel: channel.id });
      else if (!deliveredOrUnderWay(delivery) && delivery.outcome !== 'unknown')
        problems.push(
          `run ${manifest.runId} to ${channelLabel(channel)}: ${delivery.outcome}: ${delivery.error ?? ''}`,
        );
    }
    link = manifest.previous;
  }
  return problems;
}

async function postRun(
  config: AnnounceConfig,
  ports: AnnouncePorts,
  run: AnnouncedRun,
): Promise<{ channel: ChannelConfig; delivery: Delivery }[]> {
  const channels = archiveChannels(config, run.manifest.channels ?? []);
  if (channels.length === 0) return [];
  const message = archiveRunMessage(config, run);
  const out: { channel: ChannelConfig; delivery: Delivery }[] = [];
  for (const channel of channels) {
    const key = archiveEventLedgerKey(run.manifest.runId, channelAddress(channel.id));
    const delivery = ports.ledger
      ? await postOnce({ ...ports, ledger: ports.ledger }, key, channel, message)
      : { outcome: 'failed' as const, error: `${channelLabel(channel)}: no ledger in this runtime` };
    out.push({ channel, delivery });
  }
  return out;
}
