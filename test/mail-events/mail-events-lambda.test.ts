/**
 * functions/mail-events/handler.ts as Lambda runs it: its bundled config file, the table and the SES configuration
 * set from the environment, the AWS adapters pointed at dynalite and at the SES v2 stub (which records each
 * SendEmail input and relays the message to the SMTP sink). An SQS batch of EventBridge events: the good record is
 * settled (suppressed, recorded, the owner told through SES with the configuration set and the notice's delivery
 * tag), the garbled one alone is handed back; the same record again sends no second notice.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbLedger, dynamoDocumentClientFor } from '../../src/adapters/aws/dynamodb-ledger.ts';
import { DynamoDbSuppressionList } from '../../src/adapters/aws/dynamodb-suppressions.ts';
import { ensureTable, type RunningPeer, startDynalite } from '../../src/adapters/local/peer-servers.ts';
import { sesEventFor } from '../../src/adapters/local/sink-mail-events.ts';
import { type SmtpSink, startSmtpSink } from '../../src/adapters/local/smtp-sink.ts';
import { DELIVERY_TAG, deliveryTagOf } from '../../src/core/delivery/delivery-tag.ts';
import { digestLedgerKey } from '../../src/core/delivery/ledger-keys.ts';
import { mailEventNoticeKey } from '../../src/mail-events/delivery-of.ts';
import { type BundledConfigFile, writeBundledConfig } from '../helpers/bundled-config-file.ts';
import { type SesV2Stub, startSesV2Stub } from '../helpers/sesv2-stub.ts';

const TABLE = 'pulse-mail-events-lambda';
const OWNER = 'owner@example.com';
const CEO = 'ceo@example.com';
const KEY = digestLedgerKey('exec-weekly', '2026-W47', CEO);

type Handler = (event: { Records: { messageId: string; body: string }[] }) => Promise<{
  batchItemFailures: { itemIdentifier: string }[];
}>;

let dynamo: RunningPeer;
let db: DynamoDBDocumentClient;
let outbox: string;
let sink: SmtpSink;
let stub: SesV2Stub;
let configFile: BundledConfigFile;
let handler: Handler;
const saved = { ...process.env };

beforeAll(async () => {
  dynamo = await startDynalite();
  db = dynamoDocumentClientFor({ endpoint: dynamo.endpoint });
  await ensureTable(db, TABLE);
  outbox = await mkdtemp(join(tmpdir(), 'pulse-mail-events-'));
  sink = await startSmtpSink({ outboxDir: outbox });
  stub = await startSesV2Stub(sink);
  // The function's part of the config (lib/function-config.ts: service, products, mail, digests, licenses).
  configFile = await writeBundledConfig({
    service: {
      baseUrl: 'https://reporting.example.com',
      origin: 'https://dashboard.example.com',
      credentials: { source: 'secretsManager', secretId: 'pulse/reporting-service' },
    },
    products: [{ id: '12345678901' }],
    mail: { from: 'pulse@example.com', transport: { kind: 'ses', region: 'eu-west-1' } },
    digests: [
      {
        id: 'exec-weekly',
        title: 'Executive digest',
        productIds: ['12345678901'],
        recipients: [{ address: CEO }],
        schedule: { day: 'monday', time: '08:00', timeZone: 'UTC' },
        owner: OWNER,
      },
    ],
  });
  Object.assign(process.env, {
    PULSE_CONFIG_FILE: configFile.path,
    PULSE_STATE_TABLE: TABLE,
    PULSE_SES_CONFIGURATION_SET: 'Pulse-MailEvents',
    LOG_LEVEL: 'error',
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    AWS_ENDPOINT_URL_SESV2: stub.url,
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
  });
  ({ handler } = (await import('../../functions/mail-events/handler.ts')) as { handler: Handler });
  // The digest's delivery, as the digest function recorded it.
  const ledger = new DynamoDbLedger({ client: db, tableName: TABLE });
  await ledger.claim(KEY);
  await ledger.complete(KEY, { messageId: '<0100-digest@eu-west-1.amazonses.com>' });
});
afterAll(async () => {
  process.env = saved;
  await configFile?.remove();
  await stub?.close();
  await sink?.close();
  db?.destroy();
  await dynamo?.close();
  await rm(outbox, { recursive: true, force: true });
});

const bounce = sesEventFor(
  'bounce',
  CEO,
  {
    messageId: '0100-digest',
    from: 'pulse@example.com',
    to: [CEO],
    deliveryTag: deliveryTagOf(KEY),
    sentAt: new Date(),
  },
  new Date(),
);

describe('the mail-events function', () => {
  it('settles the good record, hands back the garbled one, and tells the owner through SES with the set and tag', async () => {
    const answer = await handler({
      Records: [
        { messageId: 'm-good', body: JSON.stringify(bounce) },
        { messageId: 'm-garbled', body: 'not an event' },
      ],
    });
    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: 'm-garbled' }] });
    expect(await new DynamoDbSuppressionList({ client: db, tableName: TABLE }).get(CEO)).toMatchObject({
      reason: 'bounce',
      deliveryKey: KEY,
    });
    expect(await new DynamoDbLedger({ client: db, tableName: TABLE }).get(KEY)).toMatchObject({
      state: 'done',
      mailEvents: [{ type: 'bounce', recipients: [CEO] }],
    });
    expect(stub.sent).toHaveLength(1);
    const { input } = stub.sent[0]!;
    expect(input.Destination?.ToAddresses).toEqual([OWNER]);
    expect(input.ConfigurationSetName).toBe('Pulse-MailEvents');
    expect(input.EmailTags).toEqual([{ Name: DELIVERY_TAG, Value: deliveryTagOf(mailEventNoticeKey(KEY)) }]);
    expect(sink.messages().map((m) => m.subject)).toEqual([
      `Email bounced: Executive digest (exec-weekly), 2026-W47, to ${CEO}`,
    ]);
  });

  it('sends no second notice for the same record delivered again', async () => {
    const answer = await handler({ Records: [{ messageId: 'm-again', body: JSON.stringify(bounce) }] });
    expect(answer).toEqual({ batchItemFailures: [] });
    expect(stub.sent).toHaveLength(1);
  });
});
