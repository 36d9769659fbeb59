/**
 * Delivery states that never lie (docs/delivery.md "Delivery states"), over the real local peers: dynalite for the
 * ledger, the SMTP sink, and a scripted SMTP server for the mail server's faults. DynamoDB faults (a `complete` that
 * fails) are injected with a middleware on a document client of the same dynalite, because dynalite cannot fail on
 * demand. Time moves through the ledger's clock, never through sleeps.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbLedger, dynamoDocumentClientFor } from '../../src/adapters/aws/dynamodb-ledger.ts';
import { smtpMailer } from '../../src/adapters/mail/nodemailer-mailer.ts';
import { digestLedgerKey } from '../../src/core/delivery/ledger-keys.ts';
import { unknownNoticeKey } from '../../src/core/delivery/unknown-delivery-notice.ts';
import { runDigest } from '../../src/digest/run-digest.ts';
import type { Clock } from '../../src/ports/clock.ts';
import type { Mailer } from '../../src/ports/mailer.ts';
import {
  AFTER_SEND,
  LAST_WEEK,
  type LocalDigest,
  type ReceivedMail,
  startLocalDigest,
} from '../helpers/local-digest.ts';
import { type ScriptedSmtp, startScriptedSmtp } from '../helpers/scripted-smtp.ts';

const OWNER = 'owner@example.com';
const PRODUCT = '12345678901';
const IDS = ['once', 'unconfirmed', 'died', 'dropped', 'refused', 'refused-data', 'unreachable'];

class MovableClock implements Clock {
  ms = AFTER_SEND.now().getTime();
  now = () => new Date(this.ms);
  minutes = (n: number) => {
    this.ms += n * 60_000;
  };
}

let env: LocalDigest;
let flaky: DynamoDBDocumentClient;
/** UpdateItems (complete, markUnknown) that fail before they are sent, while > 0; -1 = every one. */
let failUpdates = 0;

beforeAll(async () => {
  env = await startLocalDigest({
    digests: IDS.map((id) => ({
      id,
      productIds: [PRODUCT],
      recipients: [{ address: `${id}-a@example.com` }, { address: `${id}-b@example.com` }],
      owner: OWNER,
    })),
  });
  flaky = dynamoDocumentClientFor({ endpoint: env.peers.dynamodbEndpoint });
  flaky.middlewareStack.add(
    (next, context) => async (args) => {
      // UpdateItem is complete's (and markUnknown's) only command; the document client names it either way.
      if (/^Update/.test(context.commandName ?? '') && failUpdates !== 0) {
        failUpdates--;
        throw Object.assign(new Error('Throughput exceeds the current capacity'), {
          name: 'ProvisionedThroughputExceededException',
        });
      }
      return next(args);
    },
    { step: 'initialize' },
  );
}, 30_000);
afterAll(async () => {
  flaky?.destroy();
  await env?.close();
});

/** Ports over the flaky ledger client at `clock`, sending through `mailer` (default: the sink). */
function ports(clock: Clock, mailer: Mailer = env.peers.mailer) {
  const ledger = new DynamoDbLedger({ client: flaky, tableName: env.peers.tableName, clock });
  return { ...env.ports(AFTER_SEND), ledger, mailer, clock };
}
const run = (id: string, clock: Clock, opts: Parameters<typeof runDigest>[2] = {}, mailer?: Mailer) =>
  runDigest(env.config, ports(clock, mailer), { digestIds: [id], ...opts });
const mailsTo = async (address: string) => (await env.mails()).filter((m) => m.to === address);
const noticesOf = async (id: string): Promise<ReceivedMail[]> =>
  (await env.mails(id)).filter((m) => m.parsed.headers.get('x-pulse-notice') === 'delivery-unknown');
const record = (id: string, address: string, clock: Clock = AFTER_SEND) =>
  new DynamoDbLedger({ client: flaky, tableName: env.peers.tableName, clock }).get(
    digestLedgerKey(id, LAST_WEEK, address),
  );

describe('the ledger fails after the mail went out', () => {
  it('retries complete only: one failure still records the send, and a rerun sends nothing', async () => {
    const clock = new MovableClock();
    failUpdates = 1;
    const first = await run('once', clock);
    expect(first).toMatchObject({ ok: true, counts: { sent: 2, failed: 0, sentUnconfirmed: 0 } });
    clock.minutes(60);
    const again = await run('once', clock);
    expect(again).toMatchObject({ ok: true, counts: { sent: 0, skippedAlreadySent: 2 } });
    expect(await mailsTo('once-a@example.com')).toHaveLength(1);
    expect(await mailsTo('once-b@example.com')).toHaveLength(1);
  });

  it('reports sentUnconfirmed when complete keeps failing, keeps the claim, and never sends it again by itself', async () => {
    const clock = new MovableClock();
    failUpdates = -1;
    const first = await run('unconfirmed', clock);
    failUpdates = 0;
    expect(first.ok).toBe(false);
    expect(first.counts).toMatchObject({ sent: 0, sentUnconfirmed: 2, failed: 0 });
    expect(first.errors.join('\n')).toMatch(
      /unconfirmed-a@example.com: sentUnconfirmed: sent \(<.*>\) but not recorded/,
    );
    expect(await record('unconfirmed', 'unconfirmed-a@example.com', clock)).toMatchObject({ state: 'in-progress' });

    // Within the lease another run would be sending: it leaves them alone.
    const soon = await run('unconfirmed', clock);
    expect(soon.counts).toMatchObject({ sent: 0, inProgressElsewhere: 2 });

    // After the lease nobody knows: unknown, exit 1, one notice to the owner each, and still nothing resent.
    clock.minutes(16);
    const later = await run('unconfirmed', clock);
    expect(later.ok).toBe(false);
    expect(later.counts).toMatchObject({ sent: 0, unknown: 2, failed: 0 });
    expect(later.errors[0]).toContain('--resend-unknown');
    clock.minutes(60);
    const hourLater = await run('unconfirmed', clock);
    expect(hourLater.counts).toMatchObject({ sent: 0, unknown: 2 });
    const notices = await noticesOf('unconfirmed');
    expect(notices.map((m) => m.to)).toEqual([OWNER, OWNER]);
    expect(notices.map((m) => m.parsed.subject).sort()).toEqual([
      `Delivery unknown: Weekly product digest (unconfirmed), ${LAST_WEEK}, to unconfirmed-a@example.com`,
      `Delivery unknown: Weekly product digest (unconfirmed), ${LAST_WEEK}, to unconfirmed-b@example.com`,
    ]);
    expect(notices[0]!.parsed.text).toContain(`pulse digest --digest unconfirmed --week ${LAST_WEEK} --resend-unknown`);
    expect(await mailsTo('unconfirmed-a@example.com')).toHaveLength(1);

    // A person checked the mail log and resends one digest week on purpose: sent again, then settled.
    const resent = await run('unconfirmed', clock, { unknownDeliveries: 'resend' });
    expect(resent).toMatchObject({ ok: true, counts: { sent: 2, unknown: 0 } });
    expect(await mailsTo('unconfirmed-a@example.com')).toHaveLength(2);
    expect(await record('unconfirmed', 'unconfirmed-a@example.com')).toMatchObject({
      state: 'done',
      detail: { resentAfterUnknown: true },
    });
    const settled = await run('unconfirmed', clock);
    expect(settled).toMatchObject({ ok: true, counts: { sent: 0, skippedAlreadySent: 2 } });
  });
});

describe('a run that died between claim and send', () => {
  it('leaves an unknown delivery that is reported, told once, and settled only by a person', async () => {
    const clock = new MovableClock();
    // The dead run: it claimed the first recipient and never came back.
    const dead = new DynamoDbLedger({ client: flaky, tableName: env.peers.tableName, clock });
    expect(await dead.claim(digestLedgerKey('died', LAST_WEEK, 'died-a@example.com'))).toEqual({ outcome: 'claimed' });

    const during = await run('died', clock);
    expect(during).toMatchObject({ ok: true, counts: { sent: 1, inProgressElsewhere: 1 } });
    clock.minutes(20);
    const after = await run('died', clock);
    expect(after).toMatchObject({ ok: false, counts: { sent: 0, skippedAlreadySent: 1, unknown: 1 } });
    expect(await noticesOf('died')).toHaveLength(1);
    expect(
      await ports(clock).ledger.get(unknownNoticeKey(digestLedgerKey('died', LAST_WEEK, 'died-a@example.com'))),
    ).toMatchObject({ state: 'done' });

    // The mail server's log shows it arrived: a person records it as delivered, and nothing is sent.
    const confirmed = await run('died', clock, { unknownDeliveries: 'confirm' });
    expect(confirmed).toMatchObject({ ok: true, counts: { sent: 0, confirmed: 1, skippedAlreadySent: 1 } });
    expect(await mailsTo('died-a@example.com')).toHaveLength(0);
    expect(await run('died', clock)).toMatchObject({ ok: true, counts: { skippedAlreadySent: 2, unknown: 0 } });
    expect(await noticesOf('died')).toHaveLength(1);
  });
});

describe('the mail server', () => {
  let smtp: ScriptedSmtp | undefined;
  afterAll(async () => smtp?.close());

  /** Recipients go to a scripted server; the owner's notices to the sink. */
  const split = (server: ScriptedSmtp): Mailer => {
    const faulty = smtpMailer({ host: server.host, port: server.port, secure: false });
    return { send: (m) => (m.to === OWNER ? env.peers.mailer.send(m) : faulty.send(m)) };
  };

  it('drops the connection after the whole message arrived: unknown, kept, and not resent by the next run', async () => {
    smtp = await startScriptedSmtp({ afterData: 'drop' });
    const clock = new MovableClock();
    const first = await run('dropped', clock, {}, split(smtp));
    expect(first.ok).toBe(false);
    expect(first.counts).toMatchObject({ sent: 0, unknown: 2, failed: 0 });
    expect(smtp.received).toBe(2);
    expect(await record('dropped', 'dropped-a@example.com')).toMatchObject({
      state: 'unknown',
      reason: expect.stringMatching(/^the mail server may have taken it: Error: Connection closed unexpectedly/),
    });
    expect(await noticesOf('dropped')).toHaveLength(2);
    // A healthy mail server now: still nothing is sent without a person deciding, and no second notice.
    clock.minutes(60);
    expect((await run('dropped', clock)).counts).toMatchObject({ sent: 0, unknown: 2 });
    expect(await mailsTo('dropped-a@example.com')).toHaveLength(0);
    expect(await noticesOf('dropped')).toHaveLength(2);
    await smtp.close();
  });

  for (const [id, script, reply] of [
    ['refused', { rcpt: '550 5.1.1 no such user' }, /550 5\.1\.1 no such user/],
    ['refused-data', { afterData: '451 4.3.0 try again later' }, /451 4\.3\.0 try again later/],
  ] as const) {
    it(`answers ${reply.source.slice(0, 3)}: certainly not sent, released, and the next run sends`, async () => {
      smtp = await startScriptedSmtp(script);
      const clock = new MovableClock();
      const first = await run(id, clock, {}, split(smtp));
      expect(first.ok).toBe(false);
      expect(first.counts).toMatchObject({ sent: 0, failed: 2, unknown: 0 });
      expect(first.errors[0]).toMatch(reply);
      expect(first.errors[0]).toContain('MailNotSentError');
      expect(await record(id, `${id}-a@example.com`)).toBeUndefined();
      await smtp.close();
      const next = await run(id, clock);
      expect(next).toMatchObject({ ok: true, counts: { sent: 2 } });
      expect(await mailsTo(`${id}-a@example.com`)).toHaveLength(1);
    });
  }

  it('cannot be reached: certainly not sent, released, and the next run sends', async () => {
    const closed = await startScriptedSmtp({});
    await closed.close(); // its port now refuses connections
    const clock = new MovableClock();
    const first = await run('unreachable', clock, {}, split(closed));
    expect(first.counts).toMatchObject({ sent: 0, failed: 2, unknown: 0 });
    expect(first.errors[0]).toContain('ECONNREFUSED');
    expect(await run('unreachable', clock)).toMatchObject({ ok: true, counts: { sent: 2 } });
  });
});
