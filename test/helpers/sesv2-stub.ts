/**
 * A local peer for SES v2's SendEmail (REST-JSON: `POST /v2/email/outbound-emails`): an HTTP server on 127.0.0.1
 * that records every request's input and relays the raw MIME message to an SMTP server (the local sink), so a test
 * sees what the SES path of the bundled code really sends (configuration set, tags, sender) and the sink still
 * receives the message. A real SDK client reaches it through `AWS_ENDPOINT_URL_SESV2` (or `endpoint`).
 */
import { randomUUID } from 'node:crypto';
import { createTransport } from 'nodemailer';
import { startStubServer } from './stub-server.ts';

/** The parts of SendEmail's input the stub reads; `Content.Raw.Data` is base64 on the wire. */
export interface SendEmailInput {
  FromEmailAddress?: string;
  Destination?: { ToAddresses?: string[]; CcAddresses?: string[]; BccAddresses?: string[] };
  Content?: { Raw?: { Data?: string } };
  ConfigurationSetName?: string;
  EmailTags?: { Name: string; Value: string }[];
  [key: string]: unknown;
}

export interface SesV2Stub {
  url: string;
  /** Every SendEmail request, in order, with the SES message id it was answered with. */
  readonly sent: { input: SendEmailInput; messageId: string }[];
  /** Makes the next SendEmail requests fail with this AWS error (status, type), once each, in order. */
  failNext(...errors: { status: number; type: string; message: string }[]): void;
  close(): Promise<void>;
}

/** The address inside `Name <address>` (or the address itself). */
const addressOf = (from: string): string => /<([^>]+)>\s*$/.exec(from)?.[1] ?? from.trim();

export async function startSesV2Stub(relayTo: { host: string; port: number }): Promise<SesV2Stub> {
  const sent: SesV2Stub['sent'] = [];
  const failures: { status: number; type: string; message: string }[] = [];
  const smtp = createTransport({ host: relayTo.host, port: relayTo.port, secure: false, ignoreTLS: true });
  const reply = (status: number, body: unknown, type?: string) => ({
    status,
    headers: {
      'Content-Type': 'application/json',
      'x-amzn-RequestId': randomUUID(),
      ...(type ? { 'x-amzn-ErrorType': type } : {}),
    },
    body: JSON.stringify(body),
  });
  const server = await startStubServer(async (req, body) => {
    if (req.method !== 'POST' || req.url?.split('?')[0] !== '/v2/email/outbound-emails')
      return reply(404, { message: `no stub for ${req.method} ${req.url}` }, 'NotFoundException');
    const input = JSON.parse(body.toString('utf8') || '{}') as SendEmailInput;
    const failure = failures.shift();
    if (failure) return reply(failure.status, { message: failure.message }, failure.type);
    const raw = Buffer.from(input.Content?.Raw?.Data ?? '', 'base64');
    const to = [
      ...(input.Destination?.ToAddresses ?? []),
      ...(input.Destination?.CcAddresses ?? []),
      ...(input.Destination?.BccAddresses ?? []),
    ];
    const messageId = `0100${randomUUID().replaceAll('-', '')}-000000`;
    try {
      await smtp.sendMail({ envelope: { from: addressOf(input.FromEmailAddress ?? ''), to }, raw });
    } catch (e) {
      return reply(400, { message: (e as Error).message }, 'MessageRejected');
    }
    sent.push({ input, messageId });
    return reply(200, { MessageId: messageId });
  });
  return {
    url: server.url,
    sent,
    failNext: (...errors) => failures.push(...errors),
    close: () => {
      smtp.close();
      return server.close();
    },
  };
}
