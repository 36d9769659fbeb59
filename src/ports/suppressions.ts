/**
 * The addresses Pulse does not mail: put there by the mail-events job after a hard bounce or a complaint
 * (src/mail-events/), read by deliverOnce before every claim, cleared only by an operator
 * (`pulse mail clear-suppression`). Adapter: DynamoDB, in the state table beside the ledger.
 */
export type SuppressionReason = 'bounce' | 'complaint';

export interface Suppression {
  /** Lower-cased: addresses are matched without regard to case, like the ledger's keys. */
  address: string;
  /** When it was put on the list (ISO 8601). */
  since: string;
  reason: SuppressionReason;
  /** What the mail server or the recipient said: "Permanent/General: smtp; 550 5.1.1 user unknown", "abuse". */
  detail: string;
  /** The ledger key of the delivery that bounced or was complained about. */
  deliveryKey: string;
}

export interface SuppressionList {
  /** The address's entry, if it is suppressed. */
  get(address: string): Promise<Suppression | undefined>;
  /** Puts the address on the list; an address already there keeps its first entry. */
  add(entry: Suppression): Promise<'added' | 'alreadySuppressed'>;
  /** Takes the address off the list; returns the entry it had, if any. */
  remove(address: string): Promise<Suppression | undefined>;
  /** Every entry, by address. */
  list(): Promise<Suppression[]>;
}

/**
 * The command that clears an address (named in every line and notice that says it is suppressed). The address came
 * from a mail server's report: anything but the usual address characters is quoted for the shell it is pasted into.
 */
export function clearSuppressionCommand(address: string): string {
  const a = address.toLowerCase();
  const arg = /^[a-z0-9._%+@-]+$/.test(a) ? a : `'${a.replaceAll("'", `'\\''`)}'`;
  return `pulse mail clear-suppression ${arg}`;
}
