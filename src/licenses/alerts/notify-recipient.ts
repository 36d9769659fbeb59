/**
 * One recipient's email of a run, from the alerts spooled for it (alert-spool.ts), ALERT_BATCH at a time: claim each
 * alert in the ledger (a conditional write each; alerts claimed by an earlier or a concurrent run drop out), fetch
 * the usage of the batch's claimed keys, and add them to the draft (alert-email-draft.ts); then send the one email
 * under all the claims (sendClaimed settles them together, reading their ledger keys back from disk). Nothing
 * claimed → nothing sent. What the run holds is a batch and the draft's most urgent alerts, whatever the number of
 * alerts. An email whose outcome is unknown is reported and told once to the owner (unknown-delivery-notice.ts);
 * its alerts are sent again or recorded as delivered only when a person asks. A dry run reads the ledger instead of
 * claiming, and neither sends nor writes. A first run's summary (first-run.ts) takes the same path: only its words
 * differ (summary-view.ts).
 */

import { forEachWithConcurrency, mapWithConcurrency } from '../../client/index.ts';
import { localDateTime } from '../../core/calendar.ts';
import { channelLabel, targetLabel } from '../../core/channels/channel-targets.ts';
import { noticeChannelsOf } from '../../core/channels/notice-channels.ts';
import {
  confirmUnknown,
  LEDGER_CALLS_IN_FLIGHT,
  sendClaimed,
  settleSend,
  suppressionOf,
} from '../../core/delivery/deliver-once.ts';
import { licenseAlertsLabel } from '../../core/delivery/delivery-label.ts';
import { tallyDelivery } from '../../core/delivery/delivery-tally.ts';
import { noticeUnknownDelivery } from '../../core/delivery/unknown-delivery-notice.ts';
import type { MailMessage } from '../../ports/mailer.ts';
import { type Alert, keyIdOf, type ShownAlert } from './alert.ts';
import type { LicenseAlertView } from './alert-email.ts';
import { renderLicenseAlertEmail } from './alert-email.ts';
import { AlertEmailDraft } from './alert-email-draft.ts';
import { type RecipientSpool, spooledAlerts } from './alert-spool.ts';
import { type AlertSummary, alertView, type ViewContext } from './alert-view.ts';
import { channelOf, postFor } from './channel-post.ts';
import { addTo, EMAIL_COUNTERS, type LicenseAlertResult, POST_COUNTERS, recipientCount } from './counts.ts';
import { headlineOf } from './headline.ts';
import { labelsOf } from './labels.ts';
import type { LicenseRecipient } from './routing.ts';
import type { EmailKind, RunContext } from './run-context.ts';
import { byLifecycle } from './stage.ts';
import { summaryView } from './summary-view.ts';
import { fetchUsage, type KeyUsage } from './usage.ts';

/** Gmail clips HTML above 102 KB; the email stays below this with room for headers. */
export const MAX_HTML_BYTES = 100_000;
/** Alerts read back, claimed and looked up at a time. */
export const ALERT_BATCH = 1000;

/** Each alert with what `call` answered for it, in order, with as many ledger calls in flight as sendClaimed. */
async function inBatches<T>(alerts: Alert[], call: (a: Alert) => Promise<T>): Promise<[Alert, T][]> {
  const answers = await mapWithConcurrency(alerts, LEDGER_CALLS_IN_FLIGHT, call);
  return answers.map((answer, i): [Alert, T] => [alerts[i]!, answer]);
}

/** The unknown alerts met, and per email (the recipient's local date of its claims) what the owner is told. */
interface UnknownTally {
  /** The recipient's, which dates its emails. */
  timeZone: string;
  alerts: number;
  first: Alert | undefined;
  emails: Map<string, UnknownEmail>;
}

interface UnknownEmail {
  alerts: number;
  claimedAt: string;
  reason: string;
}

/**
 * Tells one recipient; false when the email certainly did not go out (suppressed, failed: its alerts are unclaimed
 * for the next run), true otherwise (sent, nothing to send, or its outcome unknown). Throws when nothing was sent.
 */
export async function notifyRecipient(
  ctx: RunContext,
  spool: RecipientSpool,
  email: EmailKind = { kind: 'alerts' },
): Promise<boolean> {
  const { result } = ctx;
  const { recipient } = spool;
  // Asked before any claim, as deliverOnce does: a suppressed recipient's alerts stay unclaimed for after clearing.
  const suppressed = ctx.dryRun ? undefined : await suppressionOf(ctx.ports, recipient.address);
  if (suppressed) {
    tallyDelivery(result, suppressed, `license alerts to ${recipient.address}`, EMAIL_COUNTERS);
    return false;
  }
  const names = new Map(ctx.config.products.map((p) => [p.id, p.name ?? p.id]));
  const productName = (id: string) => names.get(id) ?? id;
  const draft = new AlertEmailDraft(ctx.scratch, ctx.licenses.maxKeysInEmail, productName, !ctx.dryRun);
  const unknown: UnknownTally = { timeZone: recipient.timeZone, alerts: 0, first: undefined, emails: new Map() };
  let failure: unknown;
  try {
    for await (const batch of spooledAlerts(spool, ALERT_BATCH)) {
      const due = ctx.dryRun ? await unsent(ctx, batch, unknown) : await claim(ctx, batch, draft, unknown);
      if (due.length === 0) continue;
      const usage = await batchUsage(ctx, due);
      for (const a of due) {
        const u = usage.get(keyIdOf(a.productId, a.key.licenseKey))!;
        draft.add({ ...a, usage: u, labels: labelsOf({ ...a, licenseType: a.key.licenseType }, u, ctx.licenses) });
      }
      await draft.flushIfFull();
    }
  } catch (e) {
    // Nothing was sent: give the claims back so the next run sends them.
    if (!ctx.dryRun) await releaseAll(ctx, draft);
    failure = e;
  }
  reportUnknown(ctx, unknown);
  if (!ctx.dryRun) await tellOwner(ctx, recipient, unknown.emails);
  if (failure !== undefined) throw failure;
  const { summary } = draft;
  if (summary.alerts === 0) return true;
  const address = recipient.address;
  const label = email.kind === 'summary' ? `${address} (summary)` : address;
  if (ctx.dryRun) {
    result.outputs.push(`would tell ${label}: ${describe(summary)}`);
    count(result, summary, address, email);
    return true;
  }
  const channel = channelOf(ctx, address);
  const delivery = channel
    ? await settleSend(ctx.ports, draft.ledgerKeys(), postFor(ctx, channel, recipient, draft, productName, email), {
        receiver: channelLabel(channel),
      })
    : await sendClaimed(ctx.ports, draft.ledgerKeys(), messageFor(ctx, recipient, draft, productName, email));
  const to = targetLabel(address, ctx.config.channels);
  tallyDelivery(
    result,
    delivery,
    `license alerts to ${to} (${summary.alerts} alerts)`,
    channel ? POST_COUNTERS : EMAIL_COUNTERS,
  );
  if (delivery.outcome === 'sent' || delivery.outcome === 'sentUnconfirmed') {
    count(result, summary, address, email);
    result.outputs.push(`told ${label}: ${describe(summary)}`);
  }
  if (delivery.outcome === 'unknown') {
    // The ledger's own claim time, as a later run reads it, so both name the same notice.
    const record = await ctx.ports.ledger.get(draft.firstClaim!).catch(() => undefined);
    const claimedAt = record && record.state !== 'done' ? record.claimedAt : ctx.ports.clock.now().toISOString();
    const unknownEmail = { alerts: summary.alerts, claimedAt, reason: delivery.error ?? '' };
    const date = localDateTime(new Date(claimedAt), recipient.timeZone).date;
    await tellOwner(ctx, recipient, new Map([[date, unknownEmail]]));
  }
  return delivery.outcome !== 'failed';
}

/** The usage of a batch's keys, by product and key. */
async function batchUsage(ctx: RunContext, alerts: Alert[]): Promise<Map<string, KeyUsage>> {
  const keysByProduct = new Map<string, Set<string>>();
  for (const a of alerts) {
    const keys = keysByProduct.get(a.productId) ?? new Set<string>();
    keysByProduct.set(a.productId, keys);
    keys.add(a.key.licenseKey);
  }
  const usage = new Map<string, KeyUsage>();
  for (const [productId, keys] of keysByProduct) {
    for (const [key, u] of await fetchUsage(ctx.ports.client, productId, [...keys], ctx.windows)) {
      usage.set(keyIdOf(productId, key), u);
    }
  }
  return usage;
}

/** Gives back every claim of the draft; a release that fails leaves the claim to expire into `unknown`. */
async function releaseAll(ctx: RunContext, draft: AlertEmailDraft): Promise<void> {
  await forEachWithConcurrency(draft.ledgerKeys(), LEDGER_CALLS_IN_FLIGHT, (key) =>
    ctx.ports.ledger.release(key).catch(() => undefined),
  );
}

/**
 * One notice to the owner (`licenses.owner`) per unknown license alerts email, at most once each. An email is named
 * by its recipient and the recipient's local date of its claims (one email per recipient and day), so a later run
 * that finds its alerts still unknown sends no second notice.
 */
async function tellOwner(ctx: RunContext, recipient: LicenseRecipient, emails: Map<string, UnknownEmail>) {
  const address = recipient.address;
  for (const [date, email] of emails) {
    const problem = await noticeUnknownDelivery(
      ctx.ports,
      {
        ...licenseAlertsLabel(ctx.licenses, date, email.alerts),
        deliveryKey: `license-alerts#${address.toLowerCase()}#${date}`,
        from: ctx.config.mail.from,
        command: 'pulse licenses alerts',
        channels: noticeChannelsOf(ctx.config),
      },
      { address, label: targetLabel(address, ctx.config.channels), claimedAt: email.claimedAt, reason: email.reason },
    );
    if (problem) {
      ctx.result.ok = false;
      ctx.result.errors.push(`license alerts to ${address}: ${problem}`);
    }
  }
}

/** Counts an email that went out (dry run: would go out), in the totals and as the recipient's row. */
function count(result: LicenseAlertResult, summary: AlertSummary, address: string, email: EmailKind): void {
  addTo(result, 'alertsSent', summary.alerts);
  if (email.kind === 'summary') {
    addTo(result, 'summaries');
    addTo(result, 'alertsInSummaries', summary.alerts);
  }
  for (const [stage, n] of summary.byStage) addTo(result, `stage:${stage}`, n);
  for (const [label, n] of summary.byLabel) addTo(result, `label:${label}`, n);
  result.recipients.push(recipientCount(address, email.kind, summary.byStage));
}

/** "3 alerts (before-7 ×2, over-quota ×1)", stages in lifecycle order. */
function describe(summary: AlertSummary): string {
  const parts = [...summary.byStage].sort(([a], [b]) => byLifecycle(a, b)).map(([s, n]) => `${s} ×${n}`);
  return `${summary.alerts} alert${summary.alerts === 1 ? '' : 's'} (${parts.join(', ')})`;
}

/**
 * Claims a batch of alerts; returns those this run now holds (recorded in the draft at once), counting the others.
 * Alerts whose earlier email is unknown are confirmed (`confirm`), taken over to be sent again (`resend`), or
 * tallied to be reported and told to the owner.
 */
async function claim(ctx: RunContext, alerts: Alert[], draft: AlertEmailDraft, unknown: UnknownTally) {
  const claimed: Alert[] = [];
  const unsettled: Alert[] = [];
  const claimOptions = ctx.unknownDeliveries === 'resend' ? { takeOverUnknown: true } : {};
  for (const [a, o] of await inBatches(alerts, (a) => ctx.ports.ledger.claim(a.ledgerKey, claimOptions))) {
    if (o.outcome === 'claimed') {
      draft.claimed(a.ledgerKey);
      claimed.push(a);
    } else if (o.outcome === 'done') addTo(ctx.result, 'alertsSkippedAlreadySent');
    else if (o.outcome === 'busy') addTo(ctx.result, 'alertsInProgressElsewhere');
    else if (ctx.unknownDeliveries === 'confirm') unsettled.push(a);
    else {
      const date = localDateTime(new Date(o.claimedAt), unknown.timeZone).date;
      const email = unknown.emails.get(date) ?? { alerts: 0, claimedAt: o.claimedAt, reason: o.reason };
      email.alerts++;
      unknown.emails.set(date, email);
      tallyUnknown(unknown, a);
    }
  }
  if (unsettled.length > 0) {
    const settled = await inBatches(unsettled, (a) =>
      confirmUnknown({ ledger: ctx.ports.ledger, clock: ctx.ports.clock }, a.ledgerKey),
    );
    for (const [, now] of settled) {
      if (now === 'confirmed') addTo(ctx.result, 'alertsConfirmed');
      else if (now === 'alreadySent') addTo(ctx.result, 'alertsSkippedAlreadySent');
      else addTo(ctx.result, 'alertsInProgressElsewhere');
    }
  }
  return claimed;
}

function tallyUnknown(unknown: UnknownTally, a: Alert): void {
  unknown.alerts++;
  unknown.first ??= a;
}

/** Dry run: the alerts of a batch the ledger has no record of (read only). */
async function unsent(ctx: RunContext, alerts: Alert[], unknown: UnknownTally): Promise<Alert[]> {
  const due: Alert[] = [];
  const records = await inBatches(alerts, (a) => ctx.ports.ledger.get(a.ledgerKey));
  for (const [a, record] of records) {
    if (record === undefined) due.push(a);
    else if (record.state === 'done') addTo(ctx.result, 'alertsSkippedAlreadySent');
    else if (record.state === 'in-progress') addTo(ctx.result, 'alertsInProgressElsewhere');
    else if (ctx.unknownDeliveries === 'resend') due.push(a);
    else tallyUnknown(unknown, a);
  }
  return due;
}

function reportUnknown(ctx: RunContext, unknown: UnknownTally): void {
  const first = unknown.first;
  if (first === undefined) return;
  addTo(ctx.result, 'alertsUnknown', unknown.alerts);
  ctx.result.ok = false;
  ctx.result.errors.push(
    `${unknown.alerts} alert(s) (first: product ${first.productId}, ${first.stage}) were in an email that may or ` +
      "may not have gone out; not sent again. Check the mail server's log, then run `pulse licenses alerts " +
      '--resend-unknown` (not delivered) or `--confirm-unknown` (delivered)',
  );
}

/**
 * The email with the most urgent alerts that fit: `maxKeys`, fewer if the HTML would pass MAX_HTML_BYTES. `shown`
 * sorted by urgency; `summary` counts every alert the email carries (by default, `shown`).
 */
export function renderFitting(
  shown: ShownAlert[],
  maxKeys: number,
  viewCtx: ViewContext,
  summary?: AlertSummary,
  /** What the email says around the keys (a first run's summary); default the alert email's. */
  frame: (view: LicenseAlertView) => LicenseAlertView = (view) => view,
) {
  const render = (limit: number) => renderLicenseAlertEmail(frame(alertView(shown, limit, viewCtx, summary)));
  let limit = Math.min(maxKeys, shown.length);
  let rendered = render(limit);
  while (Buffer.byteLength(rendered.html) > MAX_HTML_BYTES && limit > 1) {
    limit = Math.max(1, Math.floor(limit * 0.7));
    rendered = render(limit);
  }
  return { rendered, limit };
}

function messageFor(
  ctx: RunContext,
  recipient: LicenseRecipient,
  draft: AlertEmailDraft,
  productName: (id: string) => string,
  email: EmailKind,
): MailMessage {
  const today = localDateTime(ctx.now, recipient.timeZone).date;
  const viewCtx = { today, productName, windowDays: ctx.licenses.usage.windowDays, footer: 'Sent by Pulse' };
  const { summary } = draft;
  const frame =
    email.kind === 'summary'
      ? (view: LicenseAlertView) => summaryView(view, summary, email.productNames, ctx.licenses.stages)
      : undefined;
  const { rendered, limit } = renderFitting(draft.top(), ctx.licenses.maxKeysInEmail, viewCtx, summary, frame);
  return {
    from: ctx.config.mail.from,
    to: recipient.address,
    subject: headlineOf(summary.keys, today, email),
    html: rendered.html,
    text: rendered.text,
    ...(limit < summary.alerts
      ? {
          attachments: [
            {
              filename: `license-${email.kind === 'summary' ? 'summary' : 'alerts'}-${today}.csv`,
              content: draft.csv(),
              contentType: 'text/csv; charset=utf-8',
            },
          ],
        }
      : {}),
    // The summary carries the alerts' header too: it is the same job's email, read by the same tools.
    headers: {
      'X-Pulse-License-Alerts': today,
      ...(email.kind === 'summary' ? { 'X-Pulse-License-Summary': today } : {}),
    },
    ...(draft.delivery !== undefined ? { delivery: draft.delivery } : {}),
  };
}
