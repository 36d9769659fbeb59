/**
 * When each scheduled job runs, in which IANA time zone, how late it may start, and when its silence is an alarm
 * (lib/constructs/scheduled-job.ts). The choices:
 *
 * - **Hourly jobs** (digest, license alerts, license report) wait inside the job for each recipient's (or the
 *   report's) local send time, so the schedule only has to come by every hour. A zone changes nothing for an hourly
 *   cron except the minute in zones with a :30 or :45 offset, so a job runs in the one zone all its local times are
 *   in (the digest's Asia/Kolkata 08:00 is then sent at 08:05, not 08:35), and in UTC when they are in several.
 *   Around a daylight-saving change an hourly cron in a zone may run once more or once less; the 3-hour heartbeat
 *   tolerates one missing run, and the jobs are safe to run twice.
 * - **The usage alerts** run hourly at :40 UTC: a rule's period (a UTC day or ISO week) is judged once its settle delay
 *   has passed, which an hourly run notices within the hour, and a run with nothing newly settled tells nothing (the
 *   series' states). :40 keeps its run away from the other hourly jobs' (:05, :10, :15, each with its window), so
 *   their sessions seldom overlap (session-budget.ts); the rules' time zones only say how dates show.
 * - **Flexible windows**: 10 minutes for the digest and the alerts (people wait for them after their send time; a few
 *   minutes is harmless), 15 for the weekly registry report, an hour for the nightly archive plan.
 * - **The archive plan** copies the service's daily files, whose dates are UTC days (src/archive/plan.ts), so it
 *   runs at 02:20 UTC, after the day has closed; the config gives the archive no zone of its own.
 * - **The archive's chain check** (archive-verify) runs at 06:20 UTC, four hours after the plan step, when the day's
 *   copies (and the manifest the last one writes) are normally done; a manifest written while it reads is either
 *   listed or not, so the check never sees half a chain.
 * - **Heartbeats**: an hourly job alarms after 3 hours without a successful run (one late or failed run is not an
 *   alarm; a failed run raises JobFailed or the function's error alarm at once anyway); the archive after 26 hours
 *   (24 between runs, plus the window and the run).
 *
 * "No successful digest run by Monday 12:00 in the schedule's zone" follows from these: every run after the send
 * time that does not deliver to a due recipient fails (held, refused, unknown: JobFailed within the hour), a run that
 * fails or never finishes raises the error, failed-run or dead-letter alarm, and runs that stop happening raise the
 * heartbeat within 3 hours — so an 08:00 digest not out by 11:00–12:00 has always raised one of them. A separate
 * weekly "digest sent" alarm is left out on purpose: CloudWatch evaluates at most the last 7 days, so a weekly event
 * whose minute drifts (flexible window, daylight saving) would leave that window empty for a few minutes each week
 * and alarm falsely.
 */
import { Duration, TimeZone } from 'aws-cdk-lib';
import { ScheduleExpression } from 'aws-cdk-lib/aws-scheduler';
import type { PulseConfig } from '../../src/config/schema.ts';
import type { JobTiming } from '../constructs/scheduled-job.ts';

/** The one IANA time zone all of these local times are in; UTC when they are in several (or none). */
export function sharedZone(zones: readonly string[]): TimeZone {
  const distinct = new Set(zones);
  return distinct.size === 1 ? TimeZone.of([...distinct][0]!) : TimeZone.ETC_UTC;
}

/** Hourly at `minute` in `zone`; a run may fail or go missing once without the heartbeat firing. */
function hourly(minute: number, zone: TimeZone, flexibleWindow: Duration): JobTiming {
  return {
    schedule: ScheduleExpression.cron({ minute: String(minute), timeZone: zone }),
    flexibleWindow,
    // A run more than an hour late is the next run's work.
    maxEventAge: Duration.hours(1),
    // One more try a minute later catches a passing failure; the next hour's run catches the rest.
    retryAttempts: 1,
    heartbeat: Duration.hours(3),
  };
}

/** The digest: hourly at :05, in its zone when every digest's schedule and recipients share one. */
export function digestTiming(config: PulseConfig): JobTiming {
  const zones = config.digests.flatMap((d) => [
    d.schedule.timeZone,
    ...d.recipients.map((r) => r.timeZone ?? d.schedule.timeZone),
  ]);
  return hourly(5, sharedZone(zones), Duration.minutes(10));
}

/** License alerts: hourly at :10; `sendTime` is local to each recipient (the owner and the routing rules'). */
export function licenseAlertsTiming(config: PulseConfig): JobTiming {
  const licenses = config.licenses;
  const zones = licenses
    ? [licenses.owner.timeZone, ...licenses.routing.flatMap((r) => r.recipients.map((x) => x.timeZone))]
    : [];
  return hourly(10, sharedZone(zones), Duration.minutes(10));
}

/** The weekly license report: hourly at :15, in the report schedule's zone (the job waits for its day and time). */
export function licenseReportTiming(config: PulseConfig): JobTiming {
  return hourly(15, sharedZone([config.licenses?.report?.schedule.timeZone ?? 'UTC']), Duration.minutes(15));
}

/** The usage alerts: hourly at :40 UTC (the periods are UTC days and weeks; the rules' zones are for display). */
export const usageAlertsTiming = (): JobTiming => hourly(40, TimeZone.ETC_UTC, Duration.minutes(10));

/**
 * A daily job in UTC (the service's export files are dated by UTC day): a run up to 6 hours late is still worth
 * making the same morning (Lambda keeps an event at most that long), two retries because both daily jobs are safe to
 * repeat, and a heartbeat that allows one missed day's timing drift.
 */
function dailyUtc(hour: number, minute: number, flexibleWindow: Duration): JobTiming {
  return {
    schedule: ScheduleExpression.cron({ minute: String(minute), hour: String(hour), timeZone: TimeZone.ETC_UTC }),
    flexibleWindow,
    maxEventAge: Duration.hours(6),
    retryAttempts: 2,
    heartbeat: Duration.hours(26),
  };
}

/** The archive's plan step: daily at 02:20 UTC, within an hour (it reconciles with the bucket: safe to repeat). */
export const archivePlanTiming = (): JobTiming => dailyUtc(2, 20, Duration.hours(1));

/** The manifest chain check: daily at 06:20 UTC (after the plan step's copies), within half an hour; read-only. */
export const archiveVerifyTiming = (): JobTiming => dailyUtc(6, 20, Duration.minutes(30));
