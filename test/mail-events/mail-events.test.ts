/**
 * Bounces and complaints of the digest over the real local peers (emulator, dynalite, the SMTP sink told to bounce
 * or complain for some addresses, as SES would publish it): the mail-events job records the event on the delivery's
 * ledger record, counts it, suppresses the address and tells the owner once; the next week's digest is not sent to
 * the address (outcome suppressed, the run not ok, a line naming the clear command) until it is cleared. A transient
 * bounce and a reject are recorded but suppress nothing; a notice's own bounce is never noticed; records that are not
 * a Pulse mail event are handed back alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SesEventBridgeEvent } from '../../src/adapters/local/sink-mail-events.ts';
import { settleSinkMailEvents } from '../../src/app/local-mail-events.ts';
import { DELIVERY_TAG, deliveryTagOf } from '../../src/core/delivery/delivery-tag.ts';
import { digestLedgerKey } from '../../src/core/delivery/ledger-keys.ts';
import { runDigest } from '../../src/digest/run-digest.ts';
import { mailEventNoticeKey } from '../../src/mail-events/delivery-of.ts';
import { processMailEvents } from '../../src/mail-events/run-mail-events.ts';
import { AFTER_SEND, LAST_WEEK, type LocalDigest, startLocalDigest } from '../helpers/local-digest.ts';

const PRODUCT = '12345678901';
const OWNER = 'owner@example.com';
const EARLIER_WEEK = '2026-W46';
const STAYS = 'stays@example.com';
const BOUNCES = 'bounces@example.com';
const COMPLAINS = 'complains@example.com';
const LOOPS = 'loops@example.com';
const BOUNCING_OWNER = 'bouncing-owner@example.com';

let env: LocalDigest;

beforeAll(async () => {
  const digest = (id: string, recipients: string[], owner = OWNER) => ({
    id,
    title: `Digest ${id}`,
    productIds: [PRODUCT],
    recipients: recipients.map((address) => ({ address })),
    owner,
  });
  env = await startLocalDigest({
    digests: [
      digest('weekly', [STAYS, BOUNCES]),
      digest('complaints', [COMPLAINS]),
      digest('loop', [LOOPS], BOUNCING_OWNER),
    ],
    mailReactions: { [BOUNCES]: 'bounce', [COMPLAINS]: 'complaint', [LOOPS]: 'bounce', [BOUNCING_OWNER]: 'bounce' },
  });
}, 30_000);
afterAll(() => env?.close());

const ports = () => env.ports(AFTER_SEND);
const digestRun = (id: string, week: string) => runDigest(env.config, ports(), { digestIds: [id], week });
const asRecords = (events: SesEventBridgeEvent[]) => events.map((e) => ({ id: e.id, body: JSON.stringify(e) }));
const settle = (records: { id: string; body: string }[]) => processMailEvents(env.config, ports(), records);
const noticesTo = async (address: string, kind: string) =>
  (await env.mails()).filter((m) => m.to === address && m.parsed.headers.get('x-pulse-notice') === kind);
const mailsTo = async (address: string) => (await env.mails()).filter((m) => m.to === address);

/** A copy of `event` (a sink bounce) with its bounce made `bounceType`/`bounceSubType`. */
function withBounce(event: SesEventBridgeEvent, bounceType: string, bounceSubType: string): SesEventBridgeEvent {
  const copy = structuredClone(event);
  Object.assign((copy.detail as { bounce: object }).bounce, { bounceType, bounceSubType });
  return copy;
}

describe('a hard bounce of a digest', () => {
  let bounceRecords: { id: string; body: string }[];

  it('is recorded on the recipient’s ledger record, counted, suppresses the address and tells the owner once', async () => {
    const sent = await digestRun('weekly', EARLIER_WEEK);
    expect(sent).toMatchObject({ ok: true, counts: { sent: 2 } });
    const events = env.peers.sink.takeMailEvents();
    expect(events.map((e) => e['detail-type'])).toEqual(['Email Bounced']);
    const key = digestLedgerKey('weekly', EARLIER_WEEK, BOUNCES);
    expect((events[0]!.detail as { mail: { tags: object } }).mail.tags).toEqual({
      [DELIVERY_TAG]: [deliveryTagOf(key)],
    });

    bounceRecords = asRecords(events);
    const { result, retry } = await settle(bounceRecords);
    expect(retry).toEqual([]);
    expect(result).toMatchObject({
      job: 'mail-events',
      ok: true,
      counts: { events: 1, bounced: 1, addressesSuppressed: 1, recorded: 1, notices: 1, invalid: 0 },
      errors: [],
    });

    const record = await env.peers.ledger.get(key);
    expect(record).toMatchObject({ state: 'done' });
    expect(record!.mailEvents).toEqual([
      {
        id: expect.stringMatching(/^bounce:local-/),
        type: 'bounce',
        at: expect.any(String),
        recipients: [BOUNCES],
        detail: expect.stringMatching(/^Permanent bounce \(General\); bounces@example.com: smtp; 550 5\.1\.1/),
        suppressed: true,
      },
    ]);
    // The other recipient's record has no event.
    expect((await env.peers.ledger.get(digestLedgerKey('weekly', EARLIER_WEEK, STAYS)))!.mailEvents).toBeUndefined();
    expect(await env.peers.suppressions.get(BOUNCES)).toEqual({
      address: BOUNCES,
      since: record!.mailEvents![0]!.at,
      reason: 'bounce',
      detail: record!.mailEvents![0]!.detail,
      deliveryKey: key,
    });

    const [notice, ...more] = await noticesTo(OWNER, 'mail-bounce');
    expect(more).toEqual([]);
    expect(notice!.parsed.subject).toBe(`Email bounced: Digest weekly (weekly), ${EARLIER_WEEK}, to ${BOUNCES}`);
    expect(notice!.parsed.text).toContain(
      `The digest “Digest weekly” (weekly) for ${EARLIER_WEEK} did not reach ${BOUNCES}`,
    );
    expect(notice!.parsed.text).toContain('550 5.1.1 user unknown');
    expect(notice!.parsed.text).toContain(`pulse mail clear-suppression ${BOUNCES}`);
    // The notice is a delivery of its own, tagged with its own ledger key.
    expect(notice!.parsed.headers.get('x-pulse-delivery')).toBe(deliveryTagOf(mailEventNoticeKey(key)));
  });

  it('processed again (a redelivered record), sends no second notice and records nothing twice', async () => {
    const { result, retry } = await settle(bounceRecords);
    expect(retry).toEqual([]);
    expect(result).toMatchObject({
      ok: true,
      counts: { duplicates: 1, bounced: 0, addressesSuppressed: 0, recorded: 0, notices: 0 },
    });
    expect(await noticesTo(OWNER, 'mail-bounce')).toHaveLength(1);
    const record = await env.peers.ledger.get(digestLedgerKey('weekly', EARLIER_WEEK, BOUNCES));
    expect(record!.mailEvents).toHaveLength(1);
  });

  it('keeps the next week’s digest from the address, claims nothing for it, and names the clear command', async () => {
    const next = await digestRun('weekly', LAST_WEEK);
    expect(next.ok).toBe(false);
    expect(next.counts).toMatchObject({ sent: 1, suppressed: 1, failed: 0 });
    expect(next.errors).toHaveLength(1);
    expect(next.errors[0]).toMatch(
      new RegExp(
        `^weekly ${LAST_WEEK} to ${BOUNCES}: suppressed: ${BOUNCES} is suppressed since \\S+ after a hard bounce ` +
          `\\(Permanent bounce \\(General\\).*; delivery digest#weekly#${EARLIER_WEEK}#${BOUNCES}\\); not sent\\. ` +
          `Once the address works again, run \`pulse mail clear-suppression ${BOUNCES}\`$`,
      ),
    );
    expect(await env.peers.ledger.get(digestLedgerKey('weekly', LAST_WEEK, BOUNCES))).toBeUndefined();
    expect((await mailsTo(BOUNCES)).map((m) => m.parsed.headers.get('x-pulse-week'))).toEqual([EARLIER_WEEK]);
    expect(env.peers.sink.takeMailEvents()).toEqual([]);
  });

  it('once cleared, the address gets the week’s digest from the next run', async () => {
    expect(await env.peers.suppressions.remove(BOUNCES)).toMatchObject({ address: BOUNCES, reason: 'bounce' });
    const after = await digestRun('weekly', LAST_WEEK);
    expect(after).toMatchObject({ ok: true, counts: { sent: 1, skippedAlreadySent: 1, suppressed: 0 } });
    expect((await mailsTo(BOUNCES)).map((m) => m.parsed.headers.get('x-pulse-week'))).toEqual([
      EARLIER_WEEK,
      LAST_WEEK,
    ]);
    // It bounces again: the local run's path settles it, and the address is suppressed again.
    const again = await settleSinkMailEvents(env.config, ports(), env.peers.sink);
    expect(again).toMatchObject({ ok: true, counts: { bounced: 1, addressesSuppressed: 1, notices: 1 } });
  });
});

describe('other events', () => {
  it('a complaint suppresses the address and tells the owner', async () => {
    await digestRun('complaints', EARLIER_WEEK);
    const { result } = await settle(asRecords(env.peers.sink.takeMailEvents()));
    expect(result).toMatchObject({
      ok: true,
      counts: { complained: 1, addressesSuppressed: 1, recorded: 1, notices: 1 },
    });
    expect(await env.peers.suppressions.get(COMPLAINS)).toMatchObject({
      reason: 'complaint',
      detail: 'Complaint (abuse)',
      deliveryKey: digestLedgerKey('complaints', EARLIER_WEEK, COMPLAINS),
    });
    const [notice] = await noticesTo(OWNER, 'mail-complaint');
    expect(notice!.parsed.subject).toBe(
      `Complaint received: Digest complaints (complaints), ${EARLIER_WEEK}, to ${COMPLAINS}`,
    );
    expect(notice!.parsed.text).toContain(`${COMPLAINS} reported the digest “Digest complaints”`);
  });

  it('a transient bounce is recorded, counted and told, but the address stays mailed', async () => {
    const key = digestLedgerKey('weekly', EARLIER_WEEK, STAYS);
    const transient = withBounce(sinkBounceFor(key, STAYS), 'Transient', 'MailboxFull');
    const { result, retry } = await settle(asRecords([transient]));
    expect(retry).toEqual([]);
    expect(result).toMatchObject({
      ok: true,
      counts: { transientBounces: 1, bounced: 0, addressesSuppressed: 0, recorded: 1, notices: 1 },
    });
    expect(await env.peers.suppressions.get(STAYS)).toBeUndefined();
    expect((await env.peers.ledger.get(key))!.mailEvents).toMatchObject([
      { type: 'bounce', detail: expect.stringMatching(/^Transient bounce \(MailboxFull\)/), suppressed: false },
    ]);
    const notice = (await noticesTo(OWNER, 'mail-bounce')).find((m) => m.parsed.subject?.endsWith(`to ${STAYS}`));
    expect(notice!.parsed.text).toContain(`Pulse still sends to ${STAYS}`);
    expect(notice!.parsed.text).not.toContain('clear-suppression');
  });

  it('an SES suppression-list drop suppresses the address and counts as such', async () => {
    const key = digestLedgerKey('weekly', LAST_WEEK, STAYS);
    const dropped = withBounce(sinkBounceFor(key, STAYS), 'Permanent', 'OnAccountSuppressionList');
    const { result } = await settle(asRecords([dropped]));
    expect(result).toMatchObject({ ok: true, counts: { suppressedBySes: 1, bounced: 0, addressesSuppressed: 1 } });
    expect(await env.peers.suppressions.remove(STAYS)).toMatchObject({ reason: 'bounce', deliveryKey: key });
  });

  it('hands back only the records that are not a Pulse mail event; the others are settled', async () => {
    const key = digestLedgerKey('weekly', LAST_WEEK, STAYS);
    const good = structuredClone(sinkBounceFor(key, STAYS));
    Object.assign(good, { 'detail-type': 'Email Rejected' });
    const detail = good.detail as Record<string, unknown>;
    detail.eventType = 'Reject';
    delete detail.bounce;
    detail.reject = { reason: 'Bad content' };
    const untagged = structuredClone(sinkBounceFor(key, STAYS));
    (untagged.detail as { mail: { tags: object } }).mail.tags = { 'ses:configuration-set': ['other'] };
    const delivered = { ...structuredClone(good), 'detail-type': 'Email Delivered' };
    const records = [
      { id: 'garbled', body: '{"detail-type": "Email Bounced", "source": "aws.ses", "detail": {' },
      { id: 'good', body: JSON.stringify(good) },
      { id: 'untagged', body: JSON.stringify(untagged) },
      { id: 'delivered', body: JSON.stringify(delivered) },
    ];
    const { result, retry } = await settle(records);
    expect(retry).toEqual(['garbled', 'untagged', 'delivered']);
    expect(result.ok).toBe(false);
    expect(result.counts).toMatchObject({ events: 4, invalid: 3, rejected: 1, recorded: 1, addressesSuppressed: 0 });
    expect(result.errors).toEqual([
      'record garbled: MailEventError: the SES event is not valid JSON',
      expect.stringMatching(/^record untagged: MailEventError: the message has no pulse-delivery tag/),
      expect.stringMatching(
        /^record delivered: MailEventError: the SES event is malformed at \["detail-type"\]: .*"Email Bounced"/,
      ),
    ]);
    expect(await env.peers.suppressions.get(STAYS)).toBeUndefined();
  });
});

describe('a notice’s own bounce', () => {
  it('is recorded on the notice and suppresses its owner, and is never noticed: no loop', async () => {
    await digestRun('loop', EARLIER_WEEK);
    const settled = await settleSinkMailEvents(env.config, ports(), env.peers.sink);
    // The digest's bounce told the owner; the owner's address bounced that notice in turn.
    expect(settled).toMatchObject({
      ok: true,
      counts: { bounced: 2, addressesSuppressed: 2, recorded: 2, notices: 1 },
    });
    expect(env.peers.sink.takeMailEvents()).toEqual([]);
    const noticeKey = mailEventNoticeKey(digestLedgerKey('loop', EARLIER_WEEK, LOOPS));
    expect(await env.peers.ledger.get(noticeKey)).toMatchObject({
      state: 'done',
      mailEvents: [{ type: 'bounce', recipients: [BOUNCING_OWNER], suppressed: true }],
    });
    expect(await env.peers.suppressions.get(BOUNCING_OWNER)).toMatchObject({ deliveryKey: noticeKey });
    expect(await mailsTo(BOUNCING_OWNER)).toHaveLength(1);
  });
});

/** The bounce the sink would publish for `address`'s delivery `key`, built as the sink builds it. */
function sinkBounceFor(key: string, address: string): SesEventBridgeEvent {
  return {
    version: '0',
    id: `manual-${Math.random().toString(36).slice(2)}`,
    'detail-type': 'Email Bounced',
    source: 'aws.ses',
    time: AFTER_SEND.now().toISOString(),
    detail: {
      eventType: 'Bounce',
      mail: {
        timestamp: AFTER_SEND.now().toISOString(),
        source: 'pulse@example.com',
        messageId: `manual-${key}`,
        destination: [address],
        tags: { [DELIVERY_TAG]: [deliveryTagOf(key)] },
      },
      bounce: {
        bounceType: 'Permanent',
        bounceSubType: 'General',
        bouncedRecipients: [{ emailAddress: address, diagnosticCode: 'smtp; 452 4.2.2 mailbox full' }],
        timestamp: AFTER_SEND.now().toISOString(),
        feedbackId: `manual-${Math.random().toString(36).slice(2)}`,
      },
    },
  };
}
