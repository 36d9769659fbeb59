/**
 * One recipient's email of a run: claim each of its alerts in the ledger (a conditional write each; alerts claimed
 * by an earlier or a concurrent run drop out), fetch the usage of the claimed keys, render, and send the one email
 * under all its claims (sendClaimed settles them together). Nothing claimed → nothing sent. An email whose outcome
 * is unknown is reported and told once to the owner (unknown-delivery-notice.ts); its alerts are sent again or
 * recorded as delivered only when a person asks. A dry run reads the ledger instead of claiming, and neither sends
 * nor writes.
 */
import { mapWithConcurrency, type ReportingClient } from '../../client/index.ts';
import type { LicensesConfig, PulseConfig } from '../../config/schema.ts';
import type { Clock } from '../../ports/clock.ts';
import type { Ledger } from '../../ports/ledger.ts';
import type { MailMessage } from '../../ports/mailer.ts';
import { renderLicenseAlertEmail } from '../../render/license-alert-email.ts';
import { confirmUnknown, type DeliveryPorts, LEDGER_CALLS_IN_FLIGHT, sendClaimed } from '../deliver-once.ts';
import { tallyDelivery } from '../delivery-tally.ts';
import { localDateTime } from '../digest/week.ts';
import type { JobResult } from '../job-result.ts';
import { noticeUnknownDelivery } from '../unknown-delivery-notice.ts';
import type { Alert, RecipientAlerts, ShownAlert } from './alert.ts';
import { alertCsv, alertView, byUrgency, type ViewContext } from './alert-view.ts';
import { addTo, EMAIL_COUNTERS, type LicenseAlertCounts } from './counts.ts';
import { labelsOf } from './labels.ts';
import { fetchUsage, type KeyUsage, type UsageWindows } from './usage.ts';

/** Gmail clips HTML above 102 KB; the email stays below this with room for headers. */
export const MAX_HTML_BYTES = 100_000;
/** Each alert with what `call` answered for it, in order, with as many ledger calls in flight as sendClaimed. */
async function inBatches<T>(alerts: Alert[], call: (a: Alert) => Promise<T>): Promise<[Alert, T][]> {
  const answers = await mapWithConcurrency(alerts, LEDGER_CALLS_IN_FLIGHT, call);
  return answers.map((answer, i): [Alert, T] => [alerts[i]!, answer]);
}

export interface RunContext {
  config: PulseConfig;
  licenses: LicensesConfig;
  ports: DeliveryPorts & { client: Pick<ReportingClient, 'dateRangeReport'>; ledger: Ledger; clock: Clock };
  now: Date;
  windows: UsageWindows;
  /** Usage already fetched in this run, by product and key. */
  usage: Map<string, KeyUsage>;
  dryRun: boolean;
  /**
   * Alerts whose earlier email's outcome is unknown, after a person checked the mail server's log: `resend` sends
   * them again, `confirm` records them as delivered without sending. Default: report them and tell the owner once.
   */
  unknownDeliveries: 'resend' | 'confirm' | undefined;
  result: JobResult<LicenseAlertCounts>;
}

const usageKey = (productId: string, licenseKey: string) => `${productId}\u0000${licenseKey}`;

export async function notifyRecipient(ctx: RunContext, entry: RecipientAlerts): Promise<void> {
  const { result } = ctx;
  const address = entry.recipient.address;
  const due = ctx.dryRun ? await unsent(ctx, entry.alerts) : await claim(ctx, entry);
  if (due.length === 0) return;
  let shown: ShownAlert[];
  try {
    await ensureUsage(ctx, due);
    shown = due
      .map((a) => {
        const usage = ctx.usage.get(usageKey(a.productId, a.key.licenseKey))!;
        return { ...a, usage, labels: labelsOf({ ...a, licenseType: a.key.licenseType }, usage, ctx.licenses) };
      })
      .sort(byUrgency);
  } catch (e) {
    // Nothing was sent: give the claims back so the next run sends them.
    if (!ctx.dryRun) for (const a of due) await ctx.ports.ledger.release(a.ledgerKey).catch(() => undefined);
    throw e;
  }
  if (ctx.dryRun) {
    result.outputs.push(`would tell ${address}: ${describe(shown)}`);
    count(result, shown);
    return;
  }
  const message = messageFor(ctx, entry, shown);
  const delivery = await sendClaimed(
    ctx.ports,
    due.map((a) => a.ledgerKey),
    message,
  );
  tallyDelivery(result, delivery, `license alerts to ${address} (${shown.length} alerts)`, EMAIL_COUNTERS);
  if (delivery.outcome === 'sent' || delivery.outcome === 'sentUnconfirmed') {
    count(result, shown);
    result.outputs.push(`told ${address}: ${describe(shown)}`);
  }
  if (delivery.outcome === 'unknown') {
    // The ledger's own claim time, as a later run reads it, so both name the same notice.
    const record = await ctx.ports.ledger.get(due[0]!.ledgerKey).catch(() => undefined);
    const claimedAt = record && record.state !== 'done' ? record.claimedAt : ctx.ports.clock.now().toISOString();
    await tellOwner(
      ctx,
      entry,
      due.map(() => ({ claimedAt, reason: delivery.error ?? '' })),
    );
  }
}

interface UnknownClaim {
  claimedAt: string;
  reason: string;
}

/**
 * One notice to the owner (`licenses.owner`) per unknown license alerts email, at most once each. An email is named
 * by its recipient and the recipient's local date of its claims (one email per recipient and day), so a later run
 * that finds its alerts still unknown sends no second notice.
 */
async function tellOwner(ctx: RunContext, entry: RecipientAlerts, unknown: UnknownClaim[]): Promise<void> {
  const address = entry.recipient.address;
  const emails = new Map<string, UnknownClaim[]>();
  for (const u of unknown) {
    const date = localDateTime(new Date(u.claimedAt), entry.recipient.timeZone).date;
    emails.set(date, [...(emails.get(date) ?? []), u]);
  }
  for (const [date, claims] of emails) {
    const n = claims.length;
    const problem = await noticeUnknownDelivery(
      ctx.ports,
      {
        deliveryKey: `license-alerts#${address.toLowerCase()}#${date}`,
        from: ctx.config.mail.from,
        owner: ctx.licenses.owner.address,
        what: `the license alerts email of ${date} (${n} alert${n === 1 ? '' : 's'})`,
        subjectLabel: `license alerts of ${date}`,
        heading: `License alerts · ${date}`,
        command: 'pulse licenses alerts',
        headers: { 'X-Pulse-License-Alerts-Notice': date },
      },
      { address, claimedAt: claims[0]!.claimedAt, reason: claims[0]!.reason },
    );
    if (problem) {
      ctx.result.ok = false;
      ctx.result.errors.push(`license alerts to ${address}: ${problem}`);
    }
  }
}

function count(result: JobResult<LicenseAlertCounts>, shown: ShownAlert[]): void {
  addTo(result, 'alertsSent', shown.length);
  for (const a of shown) {
    addTo(result, `stage:${a.stage}`);
    for (const l of a.labels) addTo(result, `label:${l}`);
  }
}

/** "3 alerts (before-7 ×2, over-quota ×1)". */
function describe(shown: ShownAlert[]): string {
  const stages = new Map<string, number>();
  for (const a of shown) stages.set(a.stage, (stages.get(a.stage) ?? 0) + 1);
  const parts = [...stages].map(([s, n]) => `${s} ×${n}`);
  return `${shown.length} alert${shown.length === 1 ? '' : 's'} (${parts.join(', ')})`;
}

/**
 * Claims every alert; returns those this run now holds, counting the others. Alerts whose earlier email is unknown
 * are confirmed (`confirm`), taken over to be sent again (`resend`), or reported and told to the owner.
 */
async function claim(ctx: RunContext, entry: RecipientAlerts): Promise<Alert[]> {
  const claimed: Alert[] = [];
  const unknown: [Alert, UnknownClaim][] = [];
  const claimOptions = ctx.unknownDeliveries === 'resend' ? { takeOverUnknown: true } : {};
  for (const [a, o] of await inBatches(entry.alerts, (a) => ctx.ports.ledger.claim(a.ledgerKey, claimOptions))) {
    if (o.outcome === 'claimed') claimed.push(a);
    else if (o.outcome === 'done') addTo(ctx.result, 'alertsSkippedAlreadySent');
    else if (o.outcome === 'busy') addTo(ctx.result, 'alertsInProgressElsewhere');
    else unknown.push([a, { claimedAt: o.claimedAt, reason: o.reason }]);
  }
  if (ctx.unknownDeliveries === 'confirm') {
    const settled = await inBatches(
      unknown.map(([a]) => a),
      (a) => confirmUnknown({ ledger: ctx.ports.ledger, clock: ctx.ports.clock }, a.ledgerKey),
    );
    for (const [, now] of settled) {
      if (now === 'confirmed') addTo(ctx.result, 'alertsConfirmed');
      else if (now === 'alreadySent') addTo(ctx.result, 'alertsSkippedAlreadySent');
      else addTo(ctx.result, 'alertsInProgressElsewhere');
    }
    if (settled.length > 0)
      ctx.result.outputs.push(`confirmed ${settled.length} alert(s) to ${entry.recipient.address}`);
    return claimed;
  }
  reportUnknown(
    ctx,
    unknown.map(([a]) => a),
  );
  await tellOwner(
    ctx,
    entry,
    unknown.map(([, u]) => u),
  );
  return claimed;
}

/** Dry run: the alerts the ledger has no record of (read only). */
async function unsent(ctx: RunContext, alerts: Alert[]): Promise<Alert[]> {
  const due: Alert[] = [];
  const unknown: Alert[] = [];
  const records = await inBatches(alerts, (a) => ctx.ports.ledger.get(a.ledgerKey));
  for (const [a, record] of records) {
    if (record === undefined) due.push(a);
    else if (record.state === 'done') addTo(ctx.result, 'alertsSkippedAlreadySent');
    else if (record.state === 'in-progress') addTo(ctx.result, 'alertsInProgressElsewhere');
    else if (ctx.unknownDeliveries === 'resend') due.push(a);
    else unknown.push(a);
  }
  reportUnknown(ctx, unknown);
  return due;
}

function reportUnknown(ctx: RunContext, unknown: Alert[]): void {
  if (unknown.length === 0) return;
  addTo(ctx.result, 'alertsUnknown', unknown.length);
  ctx.result.ok = false;
  const first = unknown[0]!;
  ctx.result.errors.push(
    `${unknown.length} alert(s) (first: product ${first.productId}, ${first.stage}) were in an email that may or may ` +
      "not have gone out; not sent again. Check the mail server's log, then run `pulse licenses alerts " +
      '--resend-unknown` (not delivered) or `--confirm-unknown` (delivered)',
  );
}

async function ensureUsage(ctx: RunContext, alerts: Alert[]): Promise<void> {
  const missing = new Map<string, Set<string>>();
  for (const a of alerts) {
    if (ctx.usage.has(usageKey(a.productId, a.key.licenseKey))) continue;
    const keys = missing.get(a.productId) ?? new Set<string>();
    missing.set(a.productId, keys);
    keys.add(a.key.licenseKey);
  }
  for (const [productId, keys] of missing) {
    const usage = await fetchUsage(ctx.ports.client, productId, [...keys], ctx.windows);
    for (const [key, u] of usage) ctx.usage.set(usageKey(productId, key), u);
  }
}

/** The email with the most urgent alerts that fit: `maxKeys`, fewer if the HTML would pass MAX_HTML_BYTES. */
export function renderFitting(shown: ShownAlert[], maxKeys: number, viewCtx: ViewContext) {
  let limit = Math.min(maxKeys, shown.length);
  let rendered = renderLicenseAlertEmail(alertView(shown, limit, viewCtx));
  while (Buffer.byteLength(rendered.html) > MAX_HTML_BYTES && limit > 1) {
    limit = Math.max(1, Math.floor(limit * 0.7));
    rendered = renderLicenseAlertEmail(alertView(shown, limit, viewCtx));
  }
  return { rendered, limit };
}

function messageFor(ctx: RunContext, entry: RecipientAlerts, shown: ShownAlert[]): MailMessage {
  const names = new Map(ctx.config.products.map((p) => [p.id, p.name ?? p.id]));
  const productName = (id: string) => names.get(id) ?? id;
  const today = localDateTime(ctx.now, entry.recipient.timeZone).date;
  const viewCtx = { today, productName, windowDays: ctx.licenses.usage.windowDays, footer: 'Sent by Pulse' };
  const { rendered, limit } = renderFitting(shown, ctx.licenses.maxKeysInEmail, viewCtx);
  const keys = new Set(shown.map((a) => `${a.productId}\u0000${a.key.licenseKey}`)).size;
  return {
    from: ctx.config.mail.from,
    to: entry.recipient.address,
    subject: `License alerts: ${keys} key${keys === 1 ? '' : 's'} need${keys === 1 ? 's' : ''} action (${today})`,
    html: rendered.html,
    text: rendered.text,
    ...(limit < shown.length
      ? {
          attachments: [
            {
              filename: `license-alerts-${today}.csv`,
              content: new TextEncoder().encode(alertCsv(shown, productName)),
              contentType: 'text/csv; charset=utf-8',
            },
          ],
        }
      : {}),
    headers: { 'X-Pulse-License-Alerts': today },
  };
}
