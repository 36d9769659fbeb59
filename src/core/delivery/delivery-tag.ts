/**
 * How a sent message names its delivery, so that a later bounce, complaint or reject can be matched to the ledger
 * record of that delivery (src/mail-events/). SES carries it as a message tag (`EmailTags`, published with
 * every event of the configuration set), SMTP as a header the local sink reads back: both hold the same value, the
 * delivery's ledger key in the only characters a tag value may hold.
 *
 * SES's API reference allows letters, digits, `_` and `-` in a tag value (256 at most); some of its guides add `.`
 * and `@`, so the stricter set is used. Every other byte of the key's UTF-8 is written `_XX` (hex, `_` itself
 * included), which keeps the value readable in the SES console: `digest#exec#2026-W46#ceo@example.com` is
 * `digest_23exec_232026-W46_23ceo_40example_2Ecom`.
 */

/** The message tag's name (SES). */
export const DELIVERY_TAG = 'pulse-delivery';
/** The same value as a header (SMTP; the local sink turns it back into the tag of the events it makes). */
export const DELIVERY_HEADER = 'X-Pulse-Delivery';
/** SES's limit on a tag value. */
export const MAX_TAG_LENGTH = 256;

const PLAIN = /[A-Za-z0-9-]/;

/** The tag value of a ledger key, or undefined when it would be longer than a tag may be. */
export function deliveryTagOf(ledgerKey: string): string | undefined {
  let out = '';
  for (const byte of Buffer.from(ledgerKey, 'utf8')) {
    const ch = String.fromCharCode(byte);
    out += byte < 0x80 && PLAIN.test(ch) ? ch : `_${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    if (out.length > MAX_TAG_LENGTH) return undefined;
  }
  return out;
}

/** A tag value that is not one deliveryTagOf writes. */
export class DeliveryTagError extends Error {
  override name = 'DeliveryTagError';
}

/** The ledger key a tag value names. */
export function ledgerKeyOfTag(tag: string): string {
  if (tag.length === 0 || tag.length > MAX_TAG_LENGTH || !/^(?:[A-Za-z0-9-]|_[0-9A-F]{2})+$/.test(tag)) {
    throw new DeliveryTagError(`${DELIVERY_TAG} ${JSON.stringify(tag.slice(0, 80))}: not a Pulse delivery tag`);
  }
  const bytes: number[] = [];
  for (let i = 0; i < tag.length; i++) {
    if (tag[i] === '_') {
      bytes.push(Number.parseInt(tag.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(tag.charCodeAt(i));
  }
  const key = Buffer.from(bytes).toString('utf8');
  if (deliveryTagOf(key) !== tag) throw new DeliveryTagError(`${DELIVERY_TAG}: not valid UTF-8 once decoded`);
  return key;
}
