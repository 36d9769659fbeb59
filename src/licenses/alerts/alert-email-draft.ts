/**
 * One recipient's license alert email, built batch by batch as its alerts are claimed, in memory that does not grow
 * with them: the counts (`summary`), the `maxShown` most urgent alerts (what the email can show), and on disk the
 * CSV line of every alert (grouped by stage and label, most urgent first) and the ledger key of every claim (what
 * the send settles, or what a failure gives back).
 */
import { deliveryTagOf } from '../../core/delivery/delivery-tag.ts';
import type { ScratchDir, SpillFile } from '../../core/spill-file.ts';
import { keyIdOf, type ShownAlert } from './alert.ts';
import {
  ALERT_CSV_HEADER,
  type AlertSummary,
  addToSummary,
  alertCsvRow,
  byUrgency,
  emptySummary,
  urgencyGroup,
} from './alert-view.ts';

export class AlertEmailDraft {
  readonly summary: AlertSummary = emptySummary();
  readonly #dir: ScratchDir;
  readonly #maxShown: number;
  readonly #productName: (id: string) => string;
  readonly #withCsv: boolean;
  #top: ShownAlert[] = [];
  /** CSV lines by `urgencyGroup`. */
  readonly #groups = new Map<number, SpillFile>();
  readonly #ledgerKeys: SpillFile;
  #firstClaim: string | undefined;
  #delivery: string | undefined;
  #lastKey: string | undefined;

  /** `withCsv`: write the CSV lines (a dry run sends nothing, so it needs only the counts and the most urgent). */
  constructor(dir: ScratchDir, maxShown: number, productName: (id: string) => string, withCsv = true) {
    this.#dir = dir;
    this.#maxShown = maxShown;
    this.#productName = productName;
    this.#withCsv = withCsv;
    this.#ledgerKeys = dir.file();
  }

  /** A claim this run now holds, recorded before anything else can fail. */
  claimed(ledgerKey: string): void {
    this.#firstClaim ??= ledgerKey;
    if (this.#delivery === undefined && deliveryTagOf(ledgerKey) !== undefined) this.#delivery = ledgerKey;
    this.#ledgerKeys.append(`${JSON.stringify(ledgerKey)}\n`);
  }

  /** The first ledger key claimed, if any. */
  get firstClaim(): string | undefined {
    return this.#firstClaim;
  }

  /**
   * The claim that names the email's delivery (its SES tag, src/core/delivery/delivery-tag.ts), where a bounce or complaint
   * of it is recorded: the first whose tag fits in a tag value (a license key may be hundreds of characters).
   */
  get delivery(): string | undefined {
    return this.#delivery;
  }

  /** An alert the email carries; alerts arrive in spool order (product, then key). */
  add(a: ShownAlert): void {
    const id = keyIdOf(a.productId, a.key.licenseKey);
    addToSummary(this.summary, a, id !== this.#lastKey);
    this.#lastKey = id;
    if (this.#withCsv) this.#csvGroup(urgencyGroup(a)).append(alertCsvRow(a, this.#productName));
    this.#top.push(a);
    // Sorting at twice the size keeps the cost at O(n log maxShown) over the run.
    if (this.#top.length >= 2 * this.#maxShown) this.#top = this.#top.sort(byUrgency).slice(0, this.#maxShown);
  }

  #csvGroup(group: number): SpillFile {
    let file = this.#groups.get(group);
    if (file === undefined) {
      file = this.#dir.file();
      this.#groups.set(group, file);
    }
    return file;
  }

  async flushIfFull(): Promise<void> {
    await this.#ledgerKeys.flushIfFull();
    for (const file of this.#groups.values()) await file.flushIfFull();
  }

  /** The most urgent alerts, sorted, at most `maxShown`. */
  top(): ShownAlert[] {
    this.#top = this.#top.sort(byUrgency).slice(0, this.#maxShown);
    return this.#top;
  }

  /** The CSV attachment: the header, then every alert, most urgent group first. */
  async *csv(): AsyncGenerator<Uint8Array> {
    yield new TextEncoder().encode(ALERT_CSV_HEADER);
    for (const group of [...this.#groups.keys()].sort((a, b) => a - b)) yield* this.#groups.get(group)!.bytes();
  }

  /** Every ledger key claimed, in order. */
  async *ledgerKeys(): AsyncGenerator<string> {
    for await (const line of this.#ledgerKeys.lines()) if (line.length > 0) yield JSON.parse(line) as string;
  }
}
