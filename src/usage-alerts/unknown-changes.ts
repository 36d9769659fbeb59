/**
 * The changes whose delivery to a recipient is unknown, kept for a person's decision (`--resend-unknown`,
 * `--confirm-unknown`). An unknown delivery counts as told: the series' state moves on, so no later judgement yields
 * the change again, and re-judging the period would not rebuild it faithfully (late data moves the figures, and a
 * reminder or a resolve depends on the state before it). So the change itself is kept, as it was told (its verdict
 * and evidence, a few hundred bytes), per recipient beside the series states (src/ports/usage-alert-states.ts), when
 * a run leaves its delivery unknown or meets its key unknown; a run that settles it (sent again, found sent, or
 * confirmed) drops it. The ledger stays the one record of what was sent: this list only says what to look at.
 * Here too what a run does with them: adds them to their recipients' targets (`--resend-unknown`), confirms them
 * (`--confirm-unknown`), and writes what it kept and settled.
 */
import type { PulseConfig } from '../config/schema.ts';
import { confirmUnknown } from '../core/delivery/deliver-once.ts';
import type { UnknownUsageAlert } from '../ports/usage-alert-states.ts';
import {
  describe,
  type Entry,
  itemOf,
  labelOf,
  recipientsOf,
  type Target,
  type TellPorts,
  type Told,
} from './alert-targets.ts';
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

/** What a target's run changes in its kept unknown changes. */
export interface Kept {
  add: Entry[];
  /** Kept keys now settled: sent again, found sent, or confirmed. */
  drop: string[];
}

/** `--confirm-unknown`: the person saw it arrive; recorded as sent, nothing sent. */
export async function confirm(ports: TellPorts, target: Target, entry: Entry, told: Told, kept: Kept): Promise<void> {
  try {
    const now = await confirmUnknown(ports, entry.key);
    if (now === 'inProgressElsewhere') return;
    told[now === 'confirmed' ? 'confirmed' : 'alreadyTold']++;
    kept.drop.push(entry.key);
  } catch (e) {
    told.failed++;
    told.errors.push(`usage alert to ${labelOf(target)}: ${entry.key} not confirmed: ${describe(e)}`);
  }
}

/**
 * The kept unknown changes of every recipient of the selected rules, added to its target (created when the run
 * judged nothing new for it). A kept change whose rule is gone from the config, or no longer names the recipient,
 * stays kept and unsent.
 */
export async function addKept(
  config: PulseConfig,
  ports: TellPorts,
  targets: Map<string, Target>,
  ruleIds: readonly string[] | undefined,
  now: Date,
  told: Told,
): Promise<void> {
  const store = ports.usageAlertStates;
  if (!store) return;
  const rules = (config.usageAlerts?.rules ?? []).filter((r) => ruleIds === undefined || ruleIds.includes(r.id));
  const recipients = new Map(rules.flatMap((r) => recipientsOf(config, r)).map((t) => [t.recipient, t]));
  for (const [recipient, base] of recipients) {
    let entries: Awaited<ReturnType<typeof store.unknownOf>>;
    try {
      entries = await store.unknownOf(recipient);
    } catch (e) {
      told.errors.push(`usage alerts to ${labelOf(base)}: the unknown deliveries were not read: ${describe(e)}`);
      continue;
    }
    for (const entry of entries) {
      const change = changeOf(entry);
      const rule = rules.find((r) => r.id === change?.ruleId);
      if (!change || !rule || !recipientsOf(config, rule).some((t) => t.recipient === recipient)) continue;
      const target = targets.get(recipient) ?? { ...base, items: [] };
      targets.set(recipient, target);
      const known = target.items.find((i) => i.key === entry.key);
      if (known) known.kept = true;
      else target.items.push({ key: entry.key, item: itemOf(config, change, now), kept: true });
    }
  }
}

/** Keeps the target's changes left unknown now and drops those settled; a failure is reported, nothing lost. */
export async function updateKept(ports: TellPorts, target: Target, kept: Kept, told: Told): Promise<void> {
  const store = ports.usageAlertStates;
  if (!store || (kept.add.length === 0 && kept.drop.length === 0)) return;
  try {
    const add = kept.add.map((e) => unknownEntryOf(e.key, e.item.change));
    await store.updateUnknown(target.recipient, add, kept.drop);
  } catch (e) {
    told.errors.push(
      `usage alerts to ${labelOf(target)}: the changes whose delivery is unknown were not kept for ` +
        `--resend-unknown (${kept.add.length} to add, ${kept.drop.length} to drop): ${describe(e)}`,
    );
  }
}
