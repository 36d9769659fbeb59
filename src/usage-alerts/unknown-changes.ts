/**
 * The changes whose delivery to a recipient is unknown, kept for a person's decision (`--resend-unknown`,
 * `--confirm-unknown`). An unknown delivery counts as told: the series' state moves on, so no later judgement yields
 * the change again, and re-judging the period would not rebuild it faithfully (late data moves the figures, and a
 * reminder or a resolve depends on the state before it). So the change itself is kept, as it was told (its verdict
 * and evidence, a few hundred bytes), per recipient beside the series states (src/ports/usage-alert-states.ts), when
 * a run leaves its delivery unknown or meets its key unknown; a run that settles it (sent again, found sent, or
 * confirmed) drops it. The ledger stays the one record of what was sent: this list only says what to look at.
 */
import type { UnknownUsageAlert } from '../ports/usage-alert-states.ts';
import type { StateChange } from './evaluate.ts';

export const unknownEntryOf = (key: string, change: StateChange): UnknownUsageAlert => ({
  key,
  change: JSON.stringify(change),
});

/** The change an entry kept, or undefined when it does not read as one (written by another version). */
export function changeOf(entry: UnknownUsageAlert): StateChange | undefined {
  try {
    const change = JSON.parse(entry.change) as Partial<StateChange>;
    const fields = ['ruleId', 'productId', 'period', 'state'] as const;
    if (!fields.every((f) => typeof change[f] === 'string') || typeof change.verdict !== 'object') return undefined;
    if (!Array.isArray(change.evidence)) return undefined;
    return change as StateChange;
  } catch {
    return undefined;
  }
}
