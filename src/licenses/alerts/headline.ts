/** The one line a recipient's license alerts go by: the email's subject, the channel message's summary. */
import type { EmailKind } from './run-context.ts';

export function headlineOf(keys: number, today: string, email: EmailKind): string {
  const keysText = `${keys} key${keys === 1 ? '' : 's'}`;
  return email.kind === 'summary'
    ? `License alerts start: ${keysText} already in an alert stage (${today})`
    : `License alerts: ${keysText} need${keys === 1 ? 's' : ''} action (${today})`;
}
