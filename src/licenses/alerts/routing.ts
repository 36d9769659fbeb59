/**
 * Who hears about a key: the first routing rule whose product, license type and key pattern all match gives its
 * recipients; a key no rule matches goes to the owner. Patterns are compiled once per run.
 */
import type { ChannelConfig, LicensesConfig } from '../../config/schema.ts';
import { channelAddress, channelsNamed } from '../../core/channels/channel-targets.ts';
import type { RegistryKey } from '../shared/registry-key.ts';

export type LicenseRecipient = LicensesConfig['owner'];

export type Router = (productId: string, key: Pick<RegistryKey, 'licenseKey' | 'licenseType'>) => LicenseRecipient[];

export function routerFor(config: Pick<LicensesConfig, 'routing' | 'owner'>): Router {
  const rules = config.routing.map((r) => ({
    ...r,
    pattern: r.keyPattern === undefined ? undefined : new RegExp(r.keyPattern, 'u'),
  }));
  const owner = [config.owner];
  return (productId, key) => {
    for (const r of rules) {
      if (r.productIds && !r.productIds.includes(productId)) continue;
      if (r.licenseTypes && !r.licenseTypes.includes(key.licenseType)) continue;
      if (r.pattern && !r.pattern.test(key.licenseKey)) continue;
      return r.recipients;
    }
    return owner;
  };
}

/**
 * Everyone who may hear about a product's keys: the recipients of every rule that may match it (any rule without
 * `productIds`, or with it), and the owner. Once each (by lower-cased address), in config order.
 */
export function recipientsOf(config: Pick<LicensesConfig, 'routing' | 'owner'>, productId: string): LicenseRecipient[] {
  const all = config.routing
    .filter((r) => !r.productIds || r.productIds.includes(productId))
    .flatMap((r) => r.recipients);
  const seen = new Set<string>();
  return [...all, config.owner].filter((r) => {
    const address = r.address.toLowerCase();
    if (seen.has(address)) return false;
    seen.add(address);
    return true;
  });
}

/**
 * The license config with each rule's channels among its recipients, as `channel:<id>` addresses
 * (channel-targets.ts): evaluation, claims and ledger keys then treat a channel like any recipient, and only the
 * send differs (notify-recipient.ts). A channel counts days in its time zone, UTC when it names none.
 */
export function withChannelRecipients(licenses: LicensesConfig, channels: readonly ChannelConfig[]): LicensesConfig {
  return {
    ...licenses,
    routing: licenses.routing.map((r) => ({
      ...r,
      recipients: [
        ...r.recipients,
        ...channelsNamed(channels, r.channels).map((c) => ({
          address: channelAddress(c.id),
          timeZone: c.timeZone ?? 'UTC',
        })),
      ],
    })),
  };
}
