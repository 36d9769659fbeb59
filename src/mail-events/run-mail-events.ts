/**
 * The mail-events job: what mail servers and recipients reported about Pulse's emails (bounces, complaints, SES
 * rejects; ses-event.ts), one queued record at a time. For each event, in this order, every step safe to repeat:
 * 1. a hard bounce (or SES's suppression-list drop) or a complaint puts the recipients on the suppression list,
 *    which every sender reads before it claims (deliver-once.ts): they are not mailed again until an operator clears
 *    them (`pulse mail clear-suppression`); a transient bounce or a reject does not;
 * 2. the event is recorded on its delivery's ledger record (its state unchanged), once per event id;
 * 3. the delivery's owner is told once per delivery (mail-event-notice.ts), unless the delivery is itself a notice
 *    to an owner (no loops) or a preview copy, or names no sender of this config.
 * A record that does not read as a Pulse mail event, or whose step failed in a way a retry can mend (DynamoDB, a
 * notice the mail server refused), is handed back (`retry`: SQS delivers it again, then dead-letters it); the
 * others are done. The same function runs in Lambda (functions/mail-events) and after a local run's mailing job.
 */

import type { PulseConfig } from '../config/schema.ts';
import type { DeliveryPorts } from '../core/delivery/deliver-once.ts';
import { deliveredOrUnderWay } from '../core/delivery/delivery-tally.ts';
import type { JobResult } from '../core/job-result.ts';
import type { ChannelPorts } from '../ports/channels.ts';
import type { Clock } from '../ports/clock.ts';
import type { Ledger, MailEventNote, MailEventRecorder } from '../ports/ledger.ts';
import { deliveryOf } from './delivery-of.ts';
import { noticeMailEvent } from './mail-event-notice.ts';
import { type MailEvent, MailEventError, parseMailEvent } from './ses-event.ts';

export interface MailEventPorts extends DeliveryPorts {
  /** The ledger, recording each event on its delivery's record (and claiming the owners' notices). */
  ledger: Ledger & MailEventRecorder;
  clock: Clock;
  /** Where the owner's notices are also posted (`notices.channels`). */
  channels?: ChannelPorts;
}

export type MailEventCounts = {
  /** Records read. */
  events: number;
  /** Hard bounces: the mail server refused the message for good. */
  bounced: number;
  /** Bounces SES gave up on after retrying (Transient), or could not classify (Undetermined): not suppressed. */
  transientBounces: number;
  /** Messages SES did not send: the address is on SES's suppression list (the account's or its global one). */
  suppressedBySes: number;
  /** Recipients who reported a message as spam. */
  complained: number;
  /** Messages SES refused to send (their content). */
  rejected: number;
  /** Events already recorded on their delivery (a redelivered record): not counted again. */
  duplicates: number;
  /** Addresses newly put on Pulse's suppression list. */
  addressesSuppressed: number;
  /** Events recorded on their delivery's ledger record. */
  recorded: number;
  /** Events whose delivery has no ledger record (expired, or given back): counted, suppressed, not recorded. */
  notRecorded: number;
  /** Owner notices sent. */
  notices: number;
  /** Records that could not be read as a Pulse mail event: handed back. */
  invalid: number;
};

export interface MailEventRecord {
  /** The SQS message id (what a partial batch response names). */
  id: string;
  body: string;
}

export interface MailEventsOutcome {
  result: JobResult<MailEventCounts>;
  /** The ids of the records to hand back. */
  retry: string[];
}

export const emptyMailEventCounts = (): MailEventCounts => ({
  events: 0,
  bounced: 0,
  transientBounces: 0,
  suppressedBySes: 0,
  complained: 0,
  rejected: 0,
  duplicates: 0,
  addressesSuppressed: 0,
  recorded: 0,
  notRecorded: 0,
  notices: 0,
  invalid: 0,
});

export async function processMailEvents(
  config: PulseConfig,
  ports: MailEventPorts,
  records: MailEventRecord[],
): Promise<MailEventsOutcome> {
  const result: JobResult<MailEventCounts> = {
    job: 'mail-events',
    ok: true,
    counts: emptyMailEventCounts(),
    outputs: [],
    errors: [],
  };
  const retry: string[] = [];
  for (const record of records) {
    result.counts.events++;
    let event: MailEvent;
    try {
      event = parseMailEvent(record.body);
    } catch (e) {
      if (!(e instanceof MailEventError)) throw e;
      result.counts.invalid++;
      fail(result, `record ${record.id}: ${e.name}: ${e.message}`);
      ports.logger.error('mail event not read', { record: record.id, error: e.message });
      retry.push(record.id);
      continue;
    }
    try {
      if ((await settle(config, ports, event, result)) === 'retry') retry.push(record.id);
    } catch (e) {
      // DynamoDB could not be read or written: every step is safe to repeat, so the whole record is.
      fail(result, `record ${record.id} (${event.type} of ${event.deliveryKey}): ${describe(e)}`);
      ports.logger.error('mail event not settled', { record: record.id, error: describe(e) });
      retry.push(record.id);
    }
  }
  return { result, retry };
}

/** The three steps for one event (see the top); `retry` when the record should come again. */
async function settle(
  config: PulseConfig,
  ports: MailEventPorts,
  event: MailEvent,
  result: JobResult<MailEventCounts>,
): Promise<'done' | 'retry'> {
  const { counts } = result;
  if (event.suppresses) {
    for (const address of event.recipients) {
      const added = await ports.suppressions.add({
        address,
        since: event.at,
        reason: event.type === 'complaint' ? 'complaint' : 'bounce',
        detail: event.details.join('; '),
        deliveryKey: event.deliveryKey,
      });
      if (added === 'added') {
        counts.addressesSuppressed++;
        ports.logger.warn('address suppressed', { address, event: event.type, delivery: event.deliveryKey });
      }
    }
  }
  const recorded = await ports.ledger.recordMailEvent(event.deliveryKey, noteOf(event));
  if (recorded === 'alreadyRecorded') counts.duplicates++;
  else {
    counts[counterOf(event)]++;
    if (recorded === 'recorded') counts.recorded++;
    else {
      counts.notRecorded++;
      ports.logger.warn('mail event for a delivery without a ledger record', { delivery: event.deliveryKey });
    }
  }

  const of = deliveryOf(config, event.deliveryKey, event.sentAt);
  if (of.kind === 'untold') return 'done';
  if (of.kind === 'unknown') {
    fail(result, `${event.type} of ${event.deliveryKey}: no owner to tell (${of.why})`);
    return 'done';
  }
  const notice = await noticeMailEvent(config, ports, of.label, event);
  for (const problem of notice.channelProblems) fail(result, `${event.type} of ${event.deliveryKey}: ${problem}`);
  if (notice.outcome === 'sent') counts.notices++;
  if (deliveredOrUnderWay(notice)) return 'done';
  fail(
    result,
    `notice to ${of.label.owner} of the ${event.type} of ${event.deliveryKey}: ${notice.outcome}: ${notice.error ?? ''}`,
  );
  // Certainly not sent: the record comes again and so does the notice; any other outcome is never sent again.
  return notice.outcome === 'failed' ? 'retry' : 'done';
}

function counterOf(event: MailEvent): keyof MailEventCounts {
  if (event.type === 'complaint') return 'complained';
  if (event.type === 'reject') return 'rejected';
  return event.bounce === 'permanent'
    ? 'bounced'
    : event.bounce === 'transient'
      ? 'transientBounces'
      : 'suppressedBySes';
}

function noteOf(event: MailEvent): MailEventNote {
  return {
    id: event.id,
    type: event.type,
    at: event.at,
    recipients: event.recipients,
    detail: event.details.join('; '),
    suppressed: event.suppresses,
  };
}

function fail(result: JobResult, error: string): void {
  result.ok = false;
  result.errors.push(error);
}

const describe = (e: unknown) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));
