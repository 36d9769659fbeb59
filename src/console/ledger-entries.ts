/**
 * Ledger records as deliveries: what was sent (read back from the ledger key with the builders' own parsers,
 * src/core/delivery/ledger-keys.ts), to whom, when, and in which state. A claim still `in-progress` while no run
 * holds the work directory is `unknown`, as the local runtime itself reads it (src/app/local-runtime.ts: the lock
 * proves no live sender, so its lease is 0). Unknown deliveries come first: someone has to decide about them.
 */
import { EXPIRED_CLAIM_REASON } from '../adapters/aws/dynamodb-ledger.ts';
import {
  HELD_NOTICE_PREFIX,
  LICENSE_ALERT_PREFIX,
  LICENSE_FIRST_RUN_PREFIX,
  parseDigestLedgerKey,
  parseLicenseReportLedgerKey,
} from '../core/delivery/ledger-keys.ts';
import type { LedgerItem } from './ledger-snapshot.ts';

export type DeliveryKind =
  | 'digest'
  | 'license alert'
  | 'license first run'
  | 'license report'
  | 'digest held notice'
  | 'other';

export interface Delivery {
  key: string;
  kind: DeliveryKind;
  /** What was sent, in a few words. */
  what: string;
  recipient: string;
  state: 'unknown' | 'in-progress' | 'done' | string;
  /** When it was last settled (sent, marked unknown) or else claimed. */
  at?: string;
  reason?: string;
  messageId?: string;
  mailEvents: string[];
  /** For a license alert: its parts. */
  alert?: LicenseAlertParts;
}

export interface LicenseAlertParts {
  productId: string;
  /** The license key as written in the registry (or `sha256-…` when its ledger key holds only the hash). */
  licenseKey: string;
  stage: string;
  expiryDate: string;
}

const STATE_ORDER: Record<string, number> = { unknown: 0, 'in-progress': 1, done: 2 };

export function deliveriesOf(items: LedgerItem[], runHoldsWorkDir: boolean): Delivery[] {
  return items.map((i) => deliveryOf(i, runHoldsWorkDir)).sort(byStateThenNewest);
}

export function byStateThenNewest(a: Delivery, b: Delivery): number {
  const s = (STATE_ORDER[a.state] ?? 3) - (STATE_ORDER[b.state] ?? 3);
  if (s !== 0) return s;
  const at = (b.at ?? '').localeCompare(a.at ?? '');
  return at !== 0 ? at : a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

function deliveryOf(item: LedgerItem, runHoldsWorkDir: boolean): Delivery {
  const stale = item.state === 'in-progress' && !runHoldsWorkDir;
  const reason = stale ? EXPIRED_CLAIM_REASON : item.reason;
  const messageId = typeof item.detail?.messageId === 'string' ? item.detail.messageId : undefined;
  const at = item.completedAt ?? item.markedAt ?? item.claimedAt;
  return {
    key: item.key,
    ...describe(item.key),
    state: stale ? 'unknown' : item.state,
    ...(at !== undefined ? { at } : {}),
    ...(reason ? { reason } : {}),
    ...(messageId !== undefined ? { messageId } : {}),
    mailEvents: (item.mailEvents ?? []).map(
      (e) => `${e.type} ${e.at}: ${e.detail}${e.suppressed ? ' (address suppressed)' : ''}`,
    ),
  };
}

function describe(key: string): Pick<Delivery, 'kind' | 'what' | 'recipient' | 'alert'> {
  const digest = parseDigestLedgerKey(key);
  if (digest) return { kind: 'digest', what: `${digest.digestId}, ${digest.isoWeek}`, recipient: digest.address };
  const report = parseLicenseReportLedgerKey(key);
  if (report) return { kind: 'license report', what: report.isoWeek, recipient: report.address };
  if (key.startsWith(LICENSE_FIRST_RUN_PREFIX)) {
    const [productId, ...address] = key.slice(LICENSE_FIRST_RUN_PREFIX.length).split('#');
    return {
      kind: 'license first run',
      what: `first run of product ${productId ?? ''} done`,
      recipient: address.join('#'),
    };
  }
  if (key.startsWith(LICENSE_ALERT_PREFIX)) {
    // (product, key, stage, expiry date, recipient): the license key is percent-encoded, so `#` separates only.
    const [productId, encoded, stage, expiryDate, ...address] = key.slice(LICENSE_ALERT_PREFIX.length).split('#');
    if (productId && encoded && stage && expiryDate && address.length > 0) {
      const licenseKey = decoded(encoded);
      return {
        kind: 'license alert',
        what: `${stage} of ${licenseKey} (product ${productId})`,
        recipient: address.join('#'),
        alert: { productId, licenseKey, stage, expiryDate },
      };
    }
  }
  if (key.startsWith(HELD_NOTICE_PREFIX)) {
    const [digestId, day] = key.slice(HELD_NOTICE_PREFIX.length).split('#');
    return { kind: 'digest held notice', what: `${digestId ?? ''}, ${day ?? ''}`, recipient: 'the digest owner' };
  }
  return { kind: 'other', what: key, recipient: '' };
}

function decoded(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}
