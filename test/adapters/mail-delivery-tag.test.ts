/**
 * A sent message names its delivery (src/core/delivery/delivery-tag.ts): the SES mailer sends every message with the
 * configuration set and the `pulse-delivery` tag (checked on the SendEmail input the SES v2 stub records, which
 * relays the raw MIME to the local SMTP sink), the SMTP mailer writes the same value as a header; deliverOnce names
 * the delivery by its ledger key. Real peers: dynalite for the ledger, the stub and the sink on 127.0.0.1.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbLedger, dynamoDocumentClientFor } from '../../src/adapters/aws/dynamodb-ledger.ts';
import { DynamoDbSuppressionList } from '../../src/adapters/aws/dynamodb-suppressions.ts';
import { ConsoleLogger } from '../../src/adapters/console-logger.ts';
import { ensureTable, type RunningPeer, startDynalite } from '../../src/adapters/local/peer-servers.ts';
import { type SmtpSink, startSmtpSink } from '../../src/adapters/local/smtp-sink.ts';
import { sesMailer, smtpMailer } from '../../src/adapters/mail/nodemailer-mailer.ts';
import { deliverOnce } from '../../src/core/delivery/deliver-once.ts';
import {
  DELIVERY_TAG,
  DeliveryTagError,
  deliveryTagOf,
  ledgerKeyOfTag,
  MAX_TAG_LENGTH,
} from '../../src/core/delivery/delivery-tag.ts';
import { digestLedgerKey, licenseAlertLedgerKey } from '../../src/core/delivery/ledger-keys.ts';
import { type SesV2Stub, startSesV2Stub } from '../helpers/sesv2-stub.ts';

const TABLE = 'pulse-delivery-tags';
let dynamo: RunningPeer;
let db: DynamoDBDocumentClient;
let outbox: string;
let sink: SmtpSink;
let stub: SesV2Stub;

beforeAll(async () => {
  dynamo = await startDynalite();
  db = dynamoDocumentClientFor({ endpoint: dynamo.endpoint });
  await ensureTable(db, TABLE);
  outbox = await mkdtemp(join(tmpdir(), 'pulse-tags-'));
  sink = await startSmtpSink({ outboxDir: outbox });
  stub = await startSesV2Stub(sink);
});
afterAll(async () => {
  await stub?.close();
  await sink?.close();
  db?.destroy();
  await dynamo?.close();
  await rm(outbox, { recursive: true, force: true });
});

const logger = new ConsoleLogger({ service: 'test', level: 'error', write: () => undefined });
const message = (to: string) => ({ from: 'Pulse <pulse@example.com>', to, subject: 's', html: '<p>h</p>', text: 't' });
const ports = (mailer: ReturnType<typeof smtpMailer>) => ({
  ledger: new DynamoDbLedger({ client: db, tableName: TABLE }),
  suppressions: new DynamoDbSuppressionList({ client: db, tableName: TABLE }),
  mailer,
  logger,
});

describe('the delivery tag', () => {
  it('reads back as the ledger key it was made of, in the characters SES allows', () => {
    const key = digestLedgerKey('exec-weekly', '2026-W47', 'Ceo+Reports@Example.com');
    const tag = deliveryTagOf(key)!;
    expect(tag).toBe('digest_23exec-weekly_232026-W47_23ceo_2Breports_40example_2Ecom');
    expect(ledgerKeyOfTag(tag)).toBe(key);
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 80 }), (k) => {
        const t = deliveryTagOf(k);
        if (t === undefined) return;
        expect(t).toMatch(/^[A-Za-z0-9_-]*$/);
        expect(t.length).toBeLessThanOrEqual(MAX_TAG_LENGTH);
        if (k !== '') expect(ledgerKeyOfTag(t)).toBe(k);
      }),
    );
  });

  it('is undefined for a key too long for a tag, and a value it never writes is a DeliveryTagError', () => {
    const long = licenseAlertLedgerKey({
      productId: '12345678901',
      licenseKey: 'K'.repeat(300),
      stage: 'before-7',
      expiryDate: '2026-12-01',
      address: 'ops@example.com',
    });
    expect(deliveryTagOf(long)).toBeUndefined();
    for (const bad of ['', 'a.b', 'digest#x', '_2', '_zz', '_61', 'x'.repeat(MAX_TAG_LENGTH + 1)])
      expect(() => ledgerKeyOfTag(bad), bad).toThrow(DeliveryTagError);
  });
});

describe('the SES mailer', () => {
  it('sends every message with the configuration set and the delivery tag of its ledger key', async () => {
    const client = new SESv2Client({
      endpoint: stub.url,
      region: 'eu-west-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const mailer = sesMailer({ client, configurationSet: 'pulse-mail-events' });
    const key = digestLedgerKey('exec-weekly', '2026-W47', 'cfo@example.com');
    const sent = await deliverOnce(ports(mailer), key, message('cfo@example.com'));
    expect(sent.outcome).toBe('sent');
    const [request] = stub.sent;
    expect(request!.input.ConfigurationSetName).toBe('pulse-mail-events');
    expect(request!.input.EmailTags).toEqual([{ Name: DELIVERY_TAG, Value: deliveryTagOf(key) }]);
    expect(request!.input.Destination?.ToAddresses).toEqual(['cfo@example.com']);
    // The stub relayed the raw message: it reached the sink, without the tag as a header (SES carries it).
    const raw = await readFile(sink.messages().at(-1)!.emlFile, 'utf8');
    expect((await simpleParser(raw)).headers.get('x-pulse-delivery')).toBeUndefined();
    client.destroy();
  });

  it('sends without a configuration set when none is configured, the tag still on', async () => {
    const client = new SESv2Client({
      endpoint: stub.url,
      region: 'eu-west-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const key = digestLedgerKey('exec-weekly', '2026-W47', 'cto@example.com');
    await deliverOnce(ports(sesMailer({ client })), key, message('cto@example.com'));
    const request = stub.sent.at(-1)!;
    expect(request.input).not.toHaveProperty('ConfigurationSetName');
    expect(request.input.EmailTags).toEqual([{ Name: DELIVERY_TAG, Value: deliveryTagOf(key) }]);
    client.destroy();
  });
});

describe('the SMTP mailer', () => {
  it('writes the delivery tag as the X-Pulse-Delivery header, beside the sender’s own headers', async () => {
    const mailer = smtpMailer({ host: sink.host, port: sink.port, secure: false });
    const key = digestLedgerKey('exec-weekly', '2026-W47', 'coo@example.com');
    await deliverOnce(ports(mailer), key, { ...message('coo@example.com'), headers: { 'X-Pulse-Digest': 'x' } });
    const parsed = await simpleParser(await readFile(sink.messages().at(-1)!.emlFile, 'utf8'));
    expect(parsed.headers.get('x-pulse-delivery')).toBe(deliveryTagOf(key));
    expect(parsed.headers.get('x-pulse-digest')).toBe('x');
  });
});
