/**
 * What a first run's summary says (`licenses.firstRun: "summary"`, first-run.ts): the alert email's key list and
 * counts (alert-view.ts) under its own title and intro, and a "what happens next" box that names the stages the
 * recipient will be alerted at from now on, from the config. Plain text; the renderer escapes.
 */
import type { LicensesConfig } from '../../config/schema.ts';
import type { LicenseAlertView } from './alert-email.ts';
import type { AlertSummary } from './alert-view.ts';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** "a", "a and b", "a, b and c". */
export function listText(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** "60, 30, 14, 7 and 1 days before it expires; on its expiry day; 1, 7 and 30 days after it; or when …". */
export function stagesText(stages: LicensesConfig['stages']): string {
  const parts: string[] = [];
  // In the order a key reaches them: the farthest before first, the nearest after first.
  const before = [...stages.daysBefore].sort((a, b) => b - a);
  if (before.length > 0) parts.push(`${listText(before.map(String))} day${last(before)} before it expires`);
  if (stages.onExpiryDay) parts.push('on its expiry day');
  const after = [...stages.daysAfter].sort((a, b) => a - b);
  if (after.length > 0) parts.push(`${listText(after.map(String))} day${last(after)} after it`);
  parts.push('or when it goes over quota, or is blocked or expired but still in use');
  return parts.join('; ');
}

/** "1 day", but "7 and 1 days". */
const last = (days: number[]) => (days.length === 1 && days[0] === 1 ? '' : 's');

/** The alert email's view, framed as the summary of a recipient's first run of `productNames`. */
export function summaryView(
  view: LicenseAlertView,
  summary: AlertSummary,
  productNames: string[],
  stages: LicensesConfig['stages'],
  /** What the recipient gets from now on: "an email" (default), "a message" in a channel. */
  medium = 'an email',
): LicenseAlertView {
  const { keys, alerts } = summary;
  const inTwo = keys === alerts ? '' : ` (${alerts} alerts: some keys are in two stages)`;
  const products = productNames.length > 0 ? ` of ${listText(productNames)}` : '';
  return {
    ...view,
    title: 'License keys already in an alert stage',
    intro:
      `Pulse now alerts you when a license key${products} reaches a new stage. ` +
      `${plural(keys, 'key')} ${keys === 1 ? 'is' : 'are'} in one already${inTwo}: here they are, once, by stage.`,
    next: {
      title: 'What happens next',
      text:
        `You get ${medium} only when a key reaches a new stage: ${stagesText(stages)}. ` +
        'The keys below are not alerted again for the stage they are in now.',
    },
  };
}
