/**
 * Bounces of the license emails over the real local peers (emulator, dynalite, the SMTP sink told to bounce): a
 * license alerts email names its delivery by its first claim, where the bounce is recorded; `licenses.owner` is
 * told; a suppressed recipient's alerts are not claimed, so after clearing the next run sends them all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settleSinkMailEvents } from '../../src/app/local-mail-events.ts';
import { DELIVERY_TAG, ledgerKeyOfTag } from '../../src/core/delivery/delivery-tag.ts';
import { LICENSE_ALERT_PREFIX } from '../../src/core/delivery/ledger-keys.ts';
import { LICENSE_CLOCK, type LocalLicenses, startLocalLicenses } from '../helpers/local-licenses.ts';

const OWNER = 'license-owner@example.com';
const BOUNCES = 'alerts-bounce@example.com';
let env: LocalLicenses;
let products: string[];

beforeAll(async () => {
  env = await startLocalLicenses({ mailReactions: { [BOUNCES]: 'bounce' } });
  products = env.peers.emulator.products.slice(0, 2).map((p) => p.productId);
}, 60_000);
afterAll(() => env?.close());

/** Every key goes to BOUNCES; the owner hears only about deliveries. */
const licenses = {
  owner: { address: OWNER, timeZone: 'UTC' },
  routing: [{ recipients: [{ address: BOUNCES, timeZone: 'UTC' }] }],
};
const settle = () => settleSinkMailEvents(env.configWith(licenses), env.ports(LICENSE_CLOCK), env.peers.sink);

describe('a bounce of a license alerts email', () => {
  it('is recorded on the email’s first claim, suppresses the recipient and tells licenses.owner', async () => {
    const first = await env.run(licenses, { productIds: [products[0]!] });
    expect(first).toMatchObject({ ok: true, counts: { emails: 1 } });
    const [event, ...more] = env.peers.sink.takeMailEvents();
    expect(more).toEqual([]);
    const { tags, timestamp } = (event!.detail as { mail: { tags: Record<string, string[]>; timestamp: string } }).mail;
    const deliveryKey = ledgerKeyOfTag(tags[DELIVERY_TAG]![0]!);
    expect(deliveryKey.startsWith(`${LICENSE_ALERT_PREFIX}${products[0]}#`)).toBe(true);
    expect(deliveryKey.endsWith(`#${BOUNCES}`)).toBe(true);

    const settled = await settleSinkMailEvents(env.configWith(licenses), env.ports(LICENSE_CLOCK), {
      takeMailEvents: () => [event!],
    });
    expect(settled).toMatchObject({
      ok: true,
      counts: { bounced: 1, recorded: 1, addressesSuppressed: 1, notices: 1 },
    });
    expect(await env.peers.ledger.get(deliveryKey)).toMatchObject({
      state: 'done',
      mailEvents: [{ type: 'bounce', recipients: [BOUNCES], suppressed: true }],
    });
    const notices = (await env.mails()).filter((m) => m.to === OWNER);
    // Named by the day SES (here the sink, on the real clock) took the message.
    expect(notices.map((m) => m.parsed.subject)).toEqual([
      `Email bounced: license alerts of ${timestamp.slice(0, 10)}, to ${BOUNCES}`,
    ]);
    expect(notices[0]!.parsed.headers.get('x-pulse-notice')).toBe('mail-bounce');
  });

  it('keeps the suppressed recipient’s alerts unclaimed until the address is cleared', async () => {
    const held = await env.run(licenses, { productIds: [products[1]!] });
    expect(held.ok).toBe(false);
    expect(held.counts).toMatchObject({ suppressed: 1, emails: 0, alertsSent: 0, alertsSkippedAlreadySent: 0 });
    expect(held.errors).toEqual([
      expect.stringMatching(
        new RegExp(`^license alerts to ${BOUNCES}: suppressed: .*run \`pulse mail clear-suppression ${BOUNCES}\`$`),
      ),
    ]);
    expect(await env.licenseMails(BOUNCES)).toHaveLength(1);

    await env.peers.suppressions.remove(BOUNCES);
    const sent = await env.run(licenses, { productIds: [products[1]!] });
    expect(sent).toMatchObject({ ok: true, counts: { emails: 1, suppressed: 0, alertsSkippedAlreadySent: 0 } });
    expect(sent.counts.alertsSent).toBeGreaterThan(0);
    expect(await env.licenseMails(BOUNCES)).toHaveLength(2);
    // It bounced again: suppressed again, the owner told of this email too.
    expect(await settle()).toMatchObject({ counts: { bounced: 1, addressesSuppressed: 1, notices: 1 } });
  });
});
