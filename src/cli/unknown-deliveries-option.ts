/**
 * `--resend-unknown` / `--confirm-unknown` (docs/delivery.md "Delivery states"): what a person decided about the
 * deliveries whose outcome is unknown, after checking the mail server's log. They exclude each other, and go with
 * nothing that only looks (`--preview`, `--dry-run`: `onlyLooks` names it).
 */
import { UsageError } from './io.ts';

export function unknownDeliveriesOption(
  values: { 'resend-unknown'?: unknown; 'confirm-unknown'?: unknown },
  onlyLooks: string | undefined,
): 'resend' | 'confirm' | undefined {
  if (values['resend-unknown'] && values['confirm-unknown']) {
    throw new UsageError('--resend-unknown and --confirm-unknown exclude each other');
  }
  const decided = values['resend-unknown'] ? 'resend' : values['confirm-unknown'] ? 'confirm' : undefined;
  if (decided && onlyLooks) throw new UsageError(`--${decided}-unknown does not go with ${onlyLooks}`);
  return decided;
}
