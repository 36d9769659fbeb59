/**
 * License alert emails against a scripted SMTP server (a real peer on 127.0.0.1): a refused email releases every
 * claim it carried and the next run sends them; a connection dropped after the whole message arrived leaves them
 * unknown, reported (exit 1), told once to the owner (`licenses.owner`), and never resent nor noticed again by a
 * later run, until a person resends (`unknownDeliveries: 'resend'`) or confirms (`'confirm'`) them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smtpMailer } from '../../src/adapters/mail/nodemailer-mailer.ts';
import { unknownNoticeKey } from '../../src/core/delivery/unknown-delivery-notice.ts';
import { runLicenseAlerts } from '../../src/licenses/alerts/run-license-alerts.ts';
import type { Mailer } from '../../src/ports/mailer.ts';
import { LICENSE_CLOCK, type LocalLicenses, startLocalLicenses } from '../helpers/local-licenses.ts';
import { type ScriptedSmtp, startScriptedSmtp } from '../helpers/scripted-smtp.ts';

const OWNER = 'license-owner@example.com';
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

describe('a connection dropped after the message (the alerts routed to one recipient, the owner elsewhere)', () => {
  /** All of the product's alerts go to `address`; the owner's notices reach the sink, the alerts `server`. */
  const routed = (address: string) => ({
    owner: { address: OWNER, timeZone: 'UTC' },
    routing: [{ productIds: [product], recipients: [{ address, timeZone: 'UTC' }] }],
  });
  const split = (server: ScriptedSmtp): Mailer => {
    const faulty = smtpMailer({ host: server.host, port: server.port, secure: false });
    return { send: (m) => (m.to === OWNER ? env.peers.mailer.send(m) : faulty.send(m)) };
  };
  async function dropOnce(address: string) {
    const smtp = await startScriptedSmtp({ afterData: 'drop' });
    try {
      const ports = { ...env.ports(LICENSE_CLOCK), mailer: split(smtp) };
      const result = await runLicenseAlerts(env.configWith(routed(address)), ports, { productIds: [product] });
      return { result, received: smtp.received };
    } finally {
      await smtp.close();
    }
  }
  const noticesAbout = async (address: string) =>
    (await env.mails()).filter(
      (m) => m.parsed.headers.get('x-pulse-notice') === 'delivery-unknown' && m.parsed.subject?.endsWith(address),
    );

  it('unknown, one notice to the owner, never resent nor noticed again by itself; resendUnknown sends it', async () => {
    const address = 'dropped@example.com';
    const { result, received } = await dropOnce(address);
    expect(received).toBe(1);
    expect(result.ok).toBe(false);
    expect(result.counts).toMatchObject({ emails: 0, unknown: 1 });
    const notices = await noticesAbout(address);
    expect(notices.map((m) => m.to)).toEqual([OWNER]);
    // Named by the recipient's local day of the ledger's claims (dynalite's wall clock here, not the job's), and
    // itself sent once, under that name.
    const subject = notices[0]!.parsed.subject ?? '';
    expect(subject).toMatch(new RegExp(`^Delivery unknown: license alerts of \\d{4}-\\d{2}-\\d{2}, to ${address}$`));
    const day = subject.slice('Delivery unknown: license alerts of '.length, -`, to ${address}`.length);
    const noticeKey = unknownNoticeKey(`license-alerts#${address}#${day}`);
    expect(await env.peers.ledger.get(noticeKey)).toMatchObject({ state: 'done' });
    const text = notices[0]!.parsed.text ?? '';
    expect(text).toMatch(
      new RegExp(`whether the license alerts email of ${day} \\(\\d+ alerts?\\) reached ${address}`),
    );
    expect(text).toMatch(/Send started \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\./);
    expect(text).toContain('The mail server may have taken it: Error: Connection closed unexpectedly');
    expect(text).toContain('pulse licenses alerts --resend-unknown');
    expect(text).toContain('pulse licenses alerts --confirm-unknown');

    const next = await env.run(routed(address), { productIds: [product] });
    expect(next.ok).toBe(false);
    expect(next.counts).toMatchObject({ emails: 0, alertsSent: 0 });
    expect(next.counts.alertsUnknown).toBeGreaterThan(0);
    expect(next.errors.join('\n')).toContain('--resend-unknown');
    expect(next.errors.join('\n')).toContain('--confirm-unknown');
    expect(await env.licenseMails(address)).toEqual([]);
    expect(await noticesAbout(address)).toHaveLength(1);

    const resent = await env.run(routed(address), { productIds: [product], unknownDeliveries: 'resend' });
    expect(resent.counts).toMatchObject({ emails: 1, alertsUnknown: 0 });
    expect(resent.counts.alertsSent).toBe(next.counts.alertsUnknown);
    expect(await env.licenseMails(address)).toHaveLength(1);
    expect(await noticesAbout(address)).toHaveLength(1);
  });

  it('confirmUnknown records the unknown alerts as delivered without sending; the next run is clean', async () => {
    const address = 'arrived@example.com';
    const { result } = await dropOnce(address);
    expect(result.counts).toMatchObject({ emails: 0, unknown: 1 });
    expect(await noticesAbout(address)).toHaveLength(1);
    const reported = await env.run(routed(address), { productIds: [product] });
    const unknown = reported.counts.alertsUnknown;
    expect(unknown).toBeGreaterThan(0);

    const confirmed = await env.run(routed(address), { productIds: [product], unknownDeliveries: 'confirm' });
    expect(confirmed.ok).toBe(true);
    expect(confirmed.counts).toMatchObject({ emails: 0, alertsSent: 0, alertsUnknown: 0, alertsConfirmed: unknown });
    const clean = await env.run(routed(address), { productIds: [product] });
    expect(clean.ok).toBe(true);
    expect(clean.errors).toEqual([]);
    expect(clean.counts).toMatchObject({ emails: 0, alertsUnknown: 0, alertsSkippedAlreadySent: unknown });
    expect(await env.licenseMails(address)).toEqual([]);
    expect(await noticesAbout(address)).toHaveLength(1);
  });
});
