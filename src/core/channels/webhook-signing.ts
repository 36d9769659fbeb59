/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): `webhook-signature: v1,<base64 HMAC-SHA256 of
 * "<id>.<timestamp>.<body>">`, keyed with the bytes of the `whsec_<base64>` secret. Signed with node:crypto rather
 * than the scheme's `standardwebhooks` package, which would add its own base64 and SHA-256 code to a digest Lambda
 * bundle at 596 of its 600 KB; the scheme's own library verifies these signatures in the tests
 * (test/core/channels/webhook-event.test.ts, test/security/hostile-channels.test.ts).
 *
 * A secret that is missing or malformed is a named error, and a NotSentError: nothing went out, so the delivery's
 * claim is released and the next run, after an operator fixed the secret, sends. Neither message quotes the secret.
 */
import { createHmac } from 'node:crypto';
import { NotSentError } from '../../ports/not-sent.ts';

const PREFIX = 'whsec_';
/** The scheme's recommended key size ("between 24 bytes and 64 bytes"). */
const MIN_KEY_BYTES = 24;
const MAX_KEY_BYTES = 64;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export class SigningSecretError extends NotSentError {
  override name = 'SigningSecretError';
}

export class MissingSigningSecretError extends SigningSecretError {
  override name = 'MissingSigningSecretError';
  constructor() {
    super('the webhook channel has no signing secret: its secret must be {"url", "signingSecret": "whsec_<base64>"}');
  }
}

export class MalformedSigningSecretError extends SigningSecretError {
  override name = 'MalformedSigningSecretError';
  constructor(reason: string) {
    super(
      `the webhook channel's signing secret is malformed (${reason}): expected whsec_ and the base64 of 24 to 64 bytes`,
    );
  }
}

/** The key bytes of a `whsec_<base64>` secret; throws a SigningSecretError that never quotes it. */
export function signingKey(secret: string | undefined): Buffer {
  if (secret === undefined || secret === '') throw new MissingSigningSecretError();
  if (!secret.startsWith(PREFIX)) throw new MalformedSigningSecretError(`it does not start with ${PREFIX}`);
  const encoded = secret.slice(PREFIX.length);
  if (!BASE64.test(encoded)) throw new MalformedSigningSecretError('what follows whsec_ is not base64');
  const key = Buffer.from(encoded, 'base64');
  if (key.length < MIN_KEY_BYTES || key.length > MAX_KEY_BYTES) {
    throw new MalformedSigningSecretError(`its key is ${key.length} bytes`);
  }
  return key;
}

/** The `webhook-signature` header of one event: `v1,<base64>`. */
export function webhookSignature(key: Buffer, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`, 'utf8').digest('base64')}`;
}
