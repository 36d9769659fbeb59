/**
 * The alerts of a run, per recipient, on disk until every registry has been read (spill-file.ts): a 1M-key registry
 * can hold a hundred thousand alerts, and one email per recipient means none can be sent before the end. Each
 * recipient's alerts are read back in batches, in the order they were found (product, then key), so the alerts of
 * one key come together.
 */
import { jsonBatches, type ScratchDir, type SpillFile } from '../../core/spill-file.ts';
import { type Alert, type AlertRow, fromAlertRow, toAlertRow } from './alert.ts';
import type { OnAlert } from './evaluate.ts';
import type { LicenseRecipient } from './routing.ts';

export interface RecipientSpool {
  recipient: LicenseRecipient;
  /** Alerts found for this recipient. */
  alerts: number;
  file: SpillFile;
}

export class AlertSpool {
  readonly #dir: ScratchDir;
  /** By lower-cased address, in the order first met. */
  readonly #byAddress = new Map<string, RecipientSpool>();

  constructor(dir: ScratchDir) {
    this.#dir = dir;
  }

  /** The evaluator's sink. */
  readonly add: OnAlert = (recipient, alert) => {
    const address = recipient.address.toLowerCase();
    let spool = this.#byAddress.get(address);
    if (spool === undefined) {
      spool = { recipient, alerts: 0, file: this.#dir.file() };
      this.#byAddress.set(address, spool);
    }
    spool.alerts++;
    spool.file.append(`${JSON.stringify(toAlertRow(alert))}\n`);
  };

  /** Writes what is buffered once it is worth a write: awaited after each page of the registry. */
  async flushIfFull(): Promise<void> {
    for (const spool of this.#byAddress.values()) await spool.file.flushIfFull();
  }

  recipients(): RecipientSpool[] {
    return [...this.#byAddress.values()];
  }
}

/** A recipient's alerts in batches of up to `size`, with their ledger keys. */
export async function* spooledAlerts(spool: RecipientSpool, size: number): AsyncGenerator<Alert[]> {
  for await (const rows of jsonBatches<AlertRow>(spool.file.lines(), size)) {
    yield rows.map((row) => fromAlertRow(row, spool.recipient));
  }
}
