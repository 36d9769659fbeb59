/**
 * sendClaimed: one email under several claims (a license alert carries many key stages), settled together. Real
 * peers: dynalite for the ledger, the scripted SMTP server for the mail server's answers.
 */
import { randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbLedger, dynamoDocumentClientFor } from '../../src/adapters/aws/dynamodb-ledger.ts';
import { ConsoleLogger } from '../../src/adapters/console-logger.ts';
import { ensureTable, type RunningPeer, startDynalite } from '../../src/adapters/local/peer-servers.ts';
import { smtpMailer } from '../../src/adapters/mail/nodemailer-mailer.ts';
import { sendClaimed } from '../../src/core/delivery/deliver-once.ts';
import { startScriptedSmtp } from '../helpers/scripted-smtp.ts';

const TABLE = 'pulse-state-deliver';
let peer: RunningPeer;
let db: DynamoDBDocumentClient;
let failCompletesOf: string | undefined;

beforeAll(async () => {
  peer = await startDynalite();
  db = dynamoDocumentClientFor({ endpoint: peer.endpoint });
  await ensureTable(db, TABLE);
  // complete of one chosen key fails before it is sent (a DynamoDB fault dynalite cannot make).
  db.middlewareStack.add(
    (next, context) => async (args) => {
      const key = (args.input as { Key?: { pk?: string } }).Key?.pk;
      if (/^Update/.test(context.commandName ?? '') && key !== undefined && key === failCompletesOf) {
        throw Object.assign(new Error('throttled'), { name: 'ProvisionedThroughputExceededException' });
      }
      return next(args);
    },
    { step: 'initialize' },
  );
});
afterAll(async () => {
  db?.destroy();
  await peer?.close();
});

const logger = new ConsoleLogger({ service: 'test', level: 'error', write: () => undefined });
const message = { from: 'pulse@example.com', to: 'ops@example.com', subject: 's', html: '<p>h</p>', text: 't' };

async function claimed(n: number) {
  const ledger = new DynamoDbLedger({ client: db, tableName: TABLE });
  const keys = Array.from({ length: n }, () => `license#${randomUUID()}`);
  for (const key of keys) expect(await ledger.claim(key)).toEqual({ outcome: 'claimed' });
  return { ledger, keys };
}

describe('sendClaimed', () => {
  it('records every key as done after one send; a key whose record fails makes the email sentUnconfirmed', async () => {
    const smtp = await startScriptedSmtp({});
    try {
      const mailer = smtpMailer({ host: smtp.host, port: smtp.port, secure: false });
      const ok = await claimed(3);
      const sent = await sendClaimed({ ledger: ok.ledger, mailer, logger }, ok.keys, message, { retryDelayMs: 1 });
      expect(sent.outcome).toBe('sent');
      for (const key of ok.keys) expect(await ok.ledger.get(key)).toMatchObject({ state: 'done' });

      const partly = await claimed(3);
      failCompletesOf = partly.keys[1];
      const unconfirmed = await sendClaimed({ ledger: partly.ledger, mailer, logger }, partly.keys, message, {
        retryDelayMs: 1,
      });
      failCompletesOf = undefined;
      expect(unconfirmed).toMatchObject({
        outcome: 'sentUnconfirmed',
        error: expect.stringMatching(/\(1 of 3 keys\)$/),
      });
      expect(await partly.ledger.get(partly.keys[0]!)).toMatchObject({ state: 'done' });
      expect(await partly.ledger.get(partly.keys[1]!)).toMatchObject({ state: 'in-progress' });
      expect(smtp.received).toBe(2);
    } finally {
      await smtp.close();
    }
  });

  it('releases every key when the mail server refused, and keeps every key unknown when it may have taken it', async () => {
    for (const [script, state] of [
      [{ rcpt: '550 no such user' }, undefined],
      [{ afterData: 'drop' }, 'unknown'],
    ] as const) {
      const smtp = await startScriptedSmtp(script);
      try {
        const mailer = smtpMailer({ host: smtp.host, port: smtp.port, secure: false });
        const { ledger, keys } = await claimed(2);
        const result = await sendClaimed({ ledger, mailer, logger }, keys, message);
        expect(result.outcome).toBe(state === undefined ? 'failed' : 'unknown');
        for (const key of keys) {
          const record = await ledger.get(key);
          if (state === undefined) expect(record).toBeUndefined();
          else expect(record).toMatchObject({ state });
        }
      } finally {
        await smtp.close();
      }
    }
  });
});
