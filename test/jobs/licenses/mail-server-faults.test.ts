/**
 * License alert emails against a scripted SMTP server (a real peer on 127.0.0.1): a refused email releases every
 * claim it carried and the next run sends them; a connection dropped after the whole message arrived leaves them
 * unknown, reported (exit 1) and never resent by a later run, until `resendUnknown`.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { smtpMailer } from '../../../src/adapters/mail/nodemailer-mailer.ts';
import { runLicenseAlerts } from '../../../src/jobs/licenses/run-license-alerts.ts';
import { LICENSE_CLOCK, type LocalLicenses, startLocalLicenses } from '../../helpers/local-licenses.ts';
import { startScriptedSmtp } from '../../helpers/scripted-smtp.ts';

let env: LocalLicenses;
let product: string;

beforeAll(async () => {
  env = await startLocalLicenses();
  product = env.peers.emulator.products[0]!.productId;
}, 60_000);
afterAll(() => env?.close());

const licenses = (address: string) => ({ owner: { address, timeZone: 'UTC' } });

async function runWith(address: string, script: Parameters<typeof startScriptedSmtp>[0], opts = {}) {
  const smtp = await startScriptedSmtp(script);
  try {
    const mailer = smtpMailer({ host: smtp.host, port: smtp.port, secure: false });
    const ports = { ...env.ports(LICENSE_CLOCK), mailer };
    const result = await runLicenseAlerts(env.configWith(licenses(address)), ports, { productIds: [product], ...opts });
    return { result, received: smtp.received };
  } finally {
    await smtp.close();
  }
}

it('a refused email releases its claims: failed (exit 1), and the next run sends every alert', async () => {
  const { result } = await runWith('refused@example.com', { rcpt: '550 5.1.1 no such user' });
  expect(result.ok).toBe(false);
  expect(result.counts).toMatchObject({ emails: 0, failed: 1, alertsSent: 0 });
  expect(result.errors[0]).toMatch(/MailNotSentError.*550 5\.1\.1/);
  const next = await env.run(licenses('refused@example.com'), { productIds: [product] });
  expect(next.counts).toMatchObject({ emails: 1, failed: 0, alertsSkippedAlreadySent: 0 });
  expect(next.counts.alertsSent).toBeGreaterThan(0);
});

it('a connection dropped after the message: unknown, never resent by itself; resendUnknown sends it', async () => {
  const { result, received } = await runWith('dropped@example.com', { afterData: 'drop' });
  expect(received).toBe(1);
  expect(result.counts).toMatchObject({ emails: 0, unknown: 1 });
  const next = await env.run(licenses('dropped@example.com'), { productIds: [product] });
  expect(next.ok).toBe(false);
  expect(next.counts).toMatchObject({ emails: 0, alertsSent: 0 });
  expect(next.counts.alertsUnknown).toBeGreaterThan(0);
  expect(next.errors.join('\n')).toContain('--resend-unknown');
  expect(await env.licenseMails('dropped@example.com')).toEqual([]);
  const resent = await env.run(licenses('dropped@example.com'), { productIds: [product], resendUnknown: true });
  expect(resent.counts).toMatchObject({ emails: 1, alertsUnknown: 0 });
  expect(resent.counts.alertsSent).toBe(next.counts.alertsUnknown);
});
