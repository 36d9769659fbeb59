/**
 * Usage alert states port: per rule, product and segment, whether it is firing and what was last told, as an alert
 * manager keeps it. A run reads the state, judges the periods since it (src/usage-alerts/evaluate.ts), tells the
 * changes at most once (their ledger keys) and then writes the state; a run that dies before the write judges the
 * same periods again next time and finds its messages already sent. Adapter: DynamoDB (dynalite locally).
 *
 * Beside the states, per recipient, the changes whose delivery to it is unknown (`UnknownUsageAlerts`): an unknown
 * delivery counts as told, so the series' state moves on and no later judgement yields the change again; what it
 * said is kept here for the run a person starts with `--resend-unknown` or `--confirm-unknown`.
 */

export interface SeriesState {
  firing: boolean;
  /** The period the current firing began (as Pulse first judged it). */
  since?: string;
  /** The last period a firing message was told for (onset or repeat). */
  lastTold?: string;
  /** The last period judged: the next run judges the periods after it. */
  lastJudged: string;
}

export interface UsageAlertStates {
  get(key: string): Promise<SeriesState | undefined>;
  put(key: string, state: SeriesState): Promise<void>;
}

/** A change whose delivery to one recipient is unknown: its ledger key, and the change as the job wrote it (JSON). */
export interface UnknownUsageAlert {
  key: string;
  change: string;
}

export interface UnknownUsageAlerts {
  /** The recipient's (a lower-case address, or `channel:<id>`) changes whose delivery is unknown. */
  unknownOf(recipient: string): Promise<UnknownUsageAlert[]>;
  /** Adds `add` and drops the keys in `drop` (by key), without losing what a concurrent run adds or drops. */
  updateUnknown(recipient: string, add: readonly UnknownUsageAlert[], drop: readonly string[]): Promise<void>;
}
