/**
 * Usage alert states port: per rule, product and segment, whether it is firing and what was last told, as an alert
 * manager keeps it. A run reads the state, judges the periods since it (src/usage-alerts/evaluate.ts), tells the
 * changes at most once (their ledger keys) and then writes the state; a run that dies before the write judges the
 * same periods again next time and finds its messages already sent. Adapter: DynamoDB (dynalite locally).
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
