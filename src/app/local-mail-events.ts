/**
 * A local run's mail events: after a mailing job, the SES events the SMTP sink queued (the bounces and complaints it
 * was told to make) go through the same mail-events job the Lambda runs on its queue, so a local run records them,
 * suppresses the addresses and tells the owners. A notice can bounce too (its owner told to bounce): the events are
 * taken again until none are left, which ends at once, since a notice's bounce sends no further notice.
 */
import type { SesEventBridgeEvent } from '../adapters/local/sink-mail-events.ts';
import type { PulseConfig } from '../config/schema.ts';
import type { JobResult } from '../core/job-result.ts';
import { type MailEventCounts, type MailEventPorts, processMailEvents } from '../mail-events/run-mail-events.ts';

/** Rounds at most: the job's own mail, the owners' notices, and one to spare. */
const MAX_ROUNDS = 3;

/** The mail-events job's result over every event the sink queued, or undefined when it queued none. */
export async function settleSinkMailEvents(
  config: PulseConfig,
  ports: MailEventPorts,
  sink: { takeMailEvents(): SesEventBridgeEvent[] },
): Promise<JobResult<MailEventCounts> | undefined> {
  let total: JobResult<MailEventCounts> | undefined;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const events = sink.takeMailEvents();
    if (events.length === 0) break;
    // As the queue would hold them: the EventBridge event as the message body.
    const records = events.map((e) => ({ id: e.id, body: JSON.stringify(e) }));
    const { result } = await processMailEvents(config, ports, records);
    total = total === undefined ? result : merged(total, result);
  }
  return total;
}

function merged(a: JobResult<MailEventCounts>, b: JobResult<MailEventCounts>): JobResult<MailEventCounts> {
  const counts = { ...a.counts };
  for (const [name, n] of Object.entries(b.counts) as [keyof MailEventCounts, number][]) counts[name] += n;
  return {
    job: a.job,
    ok: a.ok && b.ok,
    counts,
    outputs: [...a.outputs, ...b.outputs],
    errors: [...a.errors, ...b.errors],
  };
}
