/**
 * The first run of a product's license alerts for a recipient (`licenses.firstRun: "summary"`). The state table
 * tells it: one record per (product, recipient), `license-alert#first-run#<product>#<recipient, lower case>`.
 * While it is absent, the recipient's alerts of that product go into one summary email (claimed and settled like
 * alerts, so the stages it lists are recorded as seen and never alerted again); once it is there, only new stages
 * are alerted. Per recipient rather than per product, because each recipient is told on its own schedule
 * (`sendTime` in its time zone) and a recipient added later to a routing rule is in the same place as a new
 * deployment.
 *
 * The record is written at the end of a run, for every recipient whose turn it was and who may hear about the
 * product (routing.ts `recipientsOf`), unless the product's registry was not read whole or the recipient's summary
 * certainly did not go out (failed, suppressed, an error before sending): then the next run is a first run again,
 * and its summary lists only what the ledger does not hold yet. A summary whose outcome is unknown counts as told:
 * its stages are recorded (as unknown) and never sent again by themselves. `send-all` and dry runs write nothing.
 */
import { licenseFirstRunLedgerKey } from '../../core/delivery/ledger-keys.ts';
import type { Ledger } from '../../ports/ledger.ts';

/** Far beyond an alert record's 400 days: a recipient's first run of a product happens once. */
export const FIRST_RUN_RECORD_DAYS = 3650;

export class FirstRuns {
  readonly #ledger: Pick<Ledger, 'get' | 'claim' | 'complete'>;
  /** By product: the lower-cased addresses whose first run of it this is. */
  readonly #pending = new Map<string, Set<string>>();

  constructor(ledger: Pick<Ledger, 'get' | 'claim' | 'complete'>) {
    this.#ledger = ledger;
  }

  /** Reads the records of a product's recipients whose turn it is, before its registry is read. */
  async load(productId: string, addresses: string[]): Promise<void> {
    const first = new Set<string>();
    for (const address of addresses) {
      if ((await this.#ledger.get(licenseFirstRunLedgerKey(productId, address))) === undefined)
        first.add(address.toLowerCase());
    }
    this.#pending.set(productId, first);
  }

  isFirst(productId: string, address: string): boolean {
    return this.#pending.get(productId)?.has(address.toLowerCase()) === true;
  }

  /** The products whose first run this is for `address`, in the order loaded. */
  productsOf(address: string): string[] {
    const a = address.toLowerCase();
    return [...this.#pending].filter(([, first]) => first.has(a)).map(([productId]) => productId);
  }

  /** A product whose registry was not read whole: its first run is not over. */
  notRead(productId: string): void {
    this.#pending.delete(productId);
  }

  /** A recipient whose summary certainly did not go out: its first run is not over. */
  notTold(address: string): void {
    for (const first of this.#pending.values()) first.delete(address.toLowerCase());
  }

  /** Writes the record of every first run that is over; the problems, one line each. */
  async record(detail: Record<string, unknown>): Promise<string[]> {
    const problems: string[] = [];
    for (const [productId, first] of this.#pending) {
      for (const address of first) {
        const key = licenseFirstRunLedgerKey(productId, address);
        try {
          const claim = await this.#ledger.claim(key, { expiresInDays: FIRST_RUN_RECORD_DAYS });
          // Anything but a fresh claim is another run's record of the same first run.
          if (claim.outcome === 'claimed') await this.#ledger.complete(key, detail);
        } catch (e) {
          problems.push(
            `product ${productId}: the end of the first run for ${address} was not recorded (${describe(e)}); ` +
              'the next run is a first run again (it lists only stages not recorded yet)',
          );
        }
      }
    }
    return problems;
  }
}

const describe = (e: unknown) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));
