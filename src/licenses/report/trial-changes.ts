/**
 * Trials converted and lost in the week, without holding either registry in memory: last week's snapshot and this
 * week's stream are both in key order (code-point order, as searchLicenseKeys lists them:
 * docs/interface.md "Listing order"), so one pass merges them like two sorted lists, reading the old snapshot only as
 * far as the current key. A key only last week (the registry has no delete, but a record may become unreadable) counts
 * as nothing; a key only this week is new, not a trial change.
 */
import { compareCodePoints } from '../../api/code-point-order.ts';
import type { RegistryKey } from '../shared/registry-key.ts';
import type { SnapshotKey } from './registry-snapshot.ts';

export type TrialChange = 'converted' | 'lost';

export interface TrialRules {
  isTrial(type: string): boolean;
  /** Whether a key is expired now (the report's date). */
  expiredNow(key: RegistryKey): boolean;
  /** The previous snapshot's date: a trial expired before it was not active then. */
  previousDate: string;
}

export class TrialChanges {
  readonly #previous: AsyncIterator<SnapshotKey>;
  readonly #rules: TrialRules;
  #head: SnapshotKey | undefined;
  #started = false;
  #done = false;

  constructor(previous: AsyncIterable<SnapshotKey>, rules: TrialRules) {
    this.#previous = previous[Symbol.asyncIterator]();
    this.#rules = rules;
  }

  /** The change of `key` against last week (call in key order), or undefined. */
  async compare(key: RegistryKey): Promise<TrialChange | undefined> {
    if (!this.#started) {
      this.#started = true;
      await this.#advance();
    }
    while (this.#head && compareCodePoints(this.#head.licenseKey, key.licenseKey) < 0) await this.#advance();
    const before = this.#head;
    if (!before || before.licenseKey !== key.licenseKey) return undefined;
    const { isTrial, expiredNow, previousDate } = this.#rules;
    if (!isTrial(before.licenseType)) return undefined;
    if (!isTrial(key.licenseType)) return 'converted';
    const activeThen = !before.expired && (before.expiryDate === null || before.expiryDate >= previousDate);
    return activeThen && expiredNow(key) ? 'lost' : undefined;
  }

  /** Stops reading the previous snapshot. */
  async close(): Promise<void> {
    if (!this.#done) await this.#previous.return?.();
    this.#done = true;
  }

  async #advance(): Promise<void> {
    if (this.#done) {
      this.#head = undefined;
      return;
    }
    const next = await this.#previous.next();
    this.#done = next.done === true;
    this.#head = next.done ? undefined : next.value;
  }
}
