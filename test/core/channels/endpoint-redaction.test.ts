/**
 * What a report may quote of a channel's answer: the endpoint cut out however the answer spells it (as sent, with
 * JSON's escaped slashes, percent-encoded, or one path segment alone), and any other URL too.
 */
import { describe, expect, it } from 'vitest';
import { answerExcerpt, withoutEndpoint } from '../../../src/core/channels/endpoint-redaction.ts';

const TOKEN = 'Zq81vT0kPdmW3xR9';
const SIG = 'sig5d0c8e2ab71f';
const endpoint = { url: `https://hooks.example.com/services/T0/B0/${TOKEN}?sig=${SIG}` };

describe('withoutEndpoint', () => {
  it.each([
    ['as sent', `POST ${endpoint.url} failed`],
    ['JSON-escaped slashes', `{"message":"No route for \\"POST ${endpoint.url.replaceAll('/', '\\/')}\\""}`],
    ['percent-encoded', `redirect=${encodeURIComponent(endpoint.url)}`],
    ['the path alone', `no hook at /services/T0/B0/${TOKEN}`],
    ['one segment alone', `invalid_token ${TOKEN}`],
    ['the query value alone', `signature ${SIG} expired`],
  ])('%s: neither the token nor the signature is left', (_, text) => {
    const out = withoutEndpoint(text, endpoint);
    expect(out).not.toContain(TOKEN);
    expect(out).not.toContain(SIG);
    expect(out).not.toContain(encodeURIComponent(TOKEN));
  });

  it('cuts any other URL and the signing secret, and keeps the words around them', () => {
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const out = withoutEndpoint(`moved to https://other.example/x; key ${secret} wrong`, {
      ...endpoint,
      signingSecret: secret,
    });
    expect(out).toBe('moved to [url] key [redacted] wrong');
  });

  it('an excerpt is one line of at most 200 characters', () => {
    const excerpt = answerExcerpt(`line one\nline two ${'x'.repeat(400)}`, endpoint);
    expect(excerpt).toMatch(/^line one line two x+…$/);
    expect([...excerpt]).toHaveLength(200);
  });
});
