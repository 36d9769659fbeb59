/**
 * Secrets Manager JSON secrets (mocked client: rotation, malformed secrets) and the JSON-lines logger's redaction and
 * level filtering. No secret value may surface in an error or a log line.
 */
import { inspect } from 'node:util';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import {
  PLACEHOLDER_USER_NAME,
  PlaceholderCredentialsError,
  readSecretFields,
  readSecretJson,
  SecretFormatError,
  secretJsonProvider,
} from '../../src/adapters/aws/secrets.ts';
import { ConsoleLogger, parseLogLevel, REDACTED } from '../../src/adapters/console-logger.ts';
import { fixedClock } from '../../src/ports/clock.ts';

const SECRET_ID = 'pulse/reporting-service';
const sm = mockClient(SecretsManagerClient);
afterEach(() => sm.reset());

/** Every way an error can end up in a log. */
const renderings = (e: unknown) => [String(e), (e as Error).stack ?? '', inspect(e, { depth: 5 }), JSON.stringify(e)];

describe('secrets', () => {
  it('fetches the secret on every call, so a rotated password is picked up', async () => {
    sm.on(GetSecretValueCommand, { SecretId: SECRET_ID })
      .resolvesOnce({ SecretString: JSON.stringify({ userName: 'ada@example.com', password: 'first-pw' }) })
      .resolves({ SecretString: JSON.stringify({ userName: 'ada@example.com', password: 'rotated-pw' }) });
    const credentials = secretJsonProvider(new SecretsManagerClient({}), SECRET_ID);
    expect(await credentials()).toEqual({ userName: 'ada@example.com', password: 'first-pw' });
    expect(await credentials()).toEqual({ userName: 'ada@example.com', password: 'rotated-pw' });
    expect(sm.commandCalls(GetSecretValueCommand)).toHaveLength(2);
  });

  it('names the secret id and the missing fields, never the value', async () => {
    const cases: [string, RegExp][] = [
      [JSON.stringify({ user: 'ada', password: 'hunter2-leaky' }), /lacks non-empty string field\(s\): userName$/],
      [JSON.stringify({ userName: 'ada', password: '' }), /password$/],
      ['hunter2-leaky is not json', /is not valid JSON$/],
      [JSON.stringify(['hunter2-leaky']), /is not a JSON object$/],
    ];
    for (const [secretString, message] of cases) {
      sm.on(GetSecretValueCommand).resolves({ SecretString: secretString });
      const err = await secretJsonProvider(new SecretsManagerClient({}), SECRET_ID)().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SecretFormatError);
      expect((err as Error).message).toContain(SECRET_ID);
      expect((err as Error).message).toMatch(message);
      for (const text of renderings(err)) expect(text).not.toContain('hunter2');
    }
  });

  it("refuses the stack's placeholder credentials, naming the secret and how to set it, never the password", async () => {
    sm.on(GetSecretValueCommand).resolves({
      SecretString: JSON.stringify({ userName: PLACEHOLDER_USER_NAME, password: 'hunter2-generated' }),
    });
    const err = await secretJsonProvider(new SecretsManagerClient({}), SECRET_ID)().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PlaceholderCredentialsError);
    expect((err as Error).message).toMatch(
      /^the Reporting Service credentials in secret pulse\/reporting-service are still the placeholder: set them with `aws secretsmanager put-secret-value --secret-id pulse\/reporting-service /,
    );
    for (const text of renderings(err)) expect(text).not.toContain('hunter2');
  });

  it('reads other JSON secrets generically (e.g. SMTP credentials)', async () => {
    sm.on(GetSecretValueCommand).resolves({
      SecretString: JSON.stringify({ user: 'smtp-user', pass: 'p', port: 587 }),
    });
    const client = new SecretsManagerClient({});
    expect(await readSecretFields(client, 'pulse/smtp', ['user', 'pass'])).toEqual({ user: 'smtp-user', pass: 'p' });
    expect(await readSecretJson(client, 'pulse/smtp')).toEqual({ user: 'smtp-user', pass: 'p', port: 587 });
  });

  it('passes Secrets Manager errors through', async () => {
    sm.on(GetSecretValueCommand).rejects(
      Object.assign(new Error('no such secret'), { name: 'ResourceNotFoundException' }),
    );
    await expect(readSecretJson(new SecretsManagerClient({}), SECRET_ID)).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
  });
});

describe('ConsoleLogger', () => {
  const capture = (level?: 'debug' | 'info' | 'warn' | 'error') => {
    const lines: string[] = [];
    const logger = new ConsoleLogger({
      service: 'pulse-digest',
      clock: fixedClock('2026-11-23T08:00:00.000Z'),
      write: (l) => lines.push(l),
      ...(level ? { level } : {}),
    });
    return { logger, lines, parsed: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
  };

  it('writes one Powertools-style JSON object per line', () => {
    const { logger, parsed } = capture();
    logger.info('digest sent', { digestId: 'exec-weekly', recipients: 2, at: new Date('2026-11-23T08:00:01Z') });
    expect(parsed()).toEqual([
      {
        level: 'INFO',
        message: 'digest sent',
        timestamp: '2026-11-23T08:00:00.000Z',
        service: 'pulse-digest',
        digestId: 'exec-weekly',
        recipients: 2,
        at: '2026-11-23T08:00:01.000Z',
      },
    ]);
  });

  it('redacts credential-like keys at any depth, in arrays and in child context', () => {
    const { logger, lines, parsed } = capture();
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    logger.child({ sessionToken: 'tok-leak' }).warn('sign-in retried', {
      user: 'ada@example.com',
      password: 'pw-leak',
      request: { headers: { Authorization: 'Bearer bearer-leak', Cookie: 'Svc-Session=cookie-leak', accept: 'json' } },
      attempts: [{ clientSecret: 'secret-leak', n: 1 }],
      cyclic,
      message: 'not the real message',
    });
    expect(lines.join('\n')).not.toMatch(/leak/);
    const [line] = parsed();
    expect(line).toMatchObject({
      level: 'WARN',
      message: 'sign-in retried',
      'data.message': 'not the real message',
      sessionToken: REDACTED,
      user: 'ada@example.com',
      password: REDACTED,
      request: { headers: { Authorization: REDACTED, Cookie: REDACTED, accept: 'json' } },
      attempts: [{ clientSecret: REDACTED, n: 1 }],
      cyclic: { name: 'loop', self: '[circular]' },
    });
  });

  it('drops lines below the configured level', () => {
    const { logger, parsed } = capture('warn');
    logger.debug('d');
    logger.info('i');
    logger.warn('w');
    logger.error('e', { error: new TypeError('boom') });
    expect(parsed().map((l) => [l.level, l.message])).toEqual([
      ['WARN', 'w'],
      ['ERROR', 'e'],
    ]);
    expect(parsed()[1]!.error).toEqual({ name: 'TypeError', message: 'boom' });
    expect(parseLogLevel('DEBUG')).toBe('debug');
    expect(parseLogLevel('verbose')).toBeUndefined();
  });
});
