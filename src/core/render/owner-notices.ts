/**
 * Notices to an owner (a digest's, or the license jobs'), rendered from the compiled templates/failure-notice.mjml
 * plus a plain-text part with the same content: "digest held" (the guard stopped a digest; at most once a day),
 * "delivery unknown" (a send of any Pulse email — digest, license alerts, license report — may or may not have gone
 * out, so Pulse will not send it again on its own; once per such delivery) and "bounced" / "complaint" / "rejected"
 * (what the mail server or the recipient reported about a sent email, src/mail-events/; once per delivery).
 */
import { loadTemplate } from './compiled-templates.ts';
import type { RenderedEmail } from './rendered-email.ts';

export interface FailureNoticeView {
  digestId: string;
  /** The digest's title, "Weekly product digest". */
  digestTitle: string;
  /** "2026-W46" */
  isoWeek: string;
  /** One sentence per failed check: "dateRangeReport for 12345678901 failed: 503 Service Unavailable". */
  reasons: string[];
  /** When it was held, for people: "2026-11-16 08:00 Europe/Berlin". */
  heldAt: string;
  /** The command that sends anyway with the "Data incomplete" banner; null to leave the hint out. */
  forceCommand: string | null;
  footer: string;
}

/** Any email Pulse sends (a digest, license alerts, the license report) whose delivery is unknown. */
export interface UnknownDeliveryNoticeView {
  /** What was sent, as it reads in a sentence: "the digest “Weekly product digest” (weekly-exec) for 2026-W46". */
  what: string;
  /** The same, short, for the subject: "Weekly product digest (weekly-exec), 2026-W46". */
  subjectLabel: string;
  /** The line under the title: "Weekly product digest · 2026-W46". */
  heading: string;
  /** The recipient whose delivery is unknown. */
  address: string;
  /** When the send was claimed, and what is known of it. */
  claimedAt: string;
  reason: string;
  /** The command that sends it again on purpose. */
  resendCommand: string;
  /** The command that records it as delivered, after the mail server's log showed it was. */
  confirmCommand: string;
  footer: string;
}

/** A bounce, complaint or reject of any email Pulse sends, reported by the mail server or the recipient. */
export interface MailEventNoticeView {
  kind: 'bounce' | 'complaint' | 'reject';
  /** What was sent, as in UnknownDeliveryNoticeView. */
  what: string;
  subjectLabel: string;
  heading: string;
  /** The recipient it was sent to. */
  address: string;
  /** When it was reported (ISO 8601). */
  at: string;
  /** What was reported, one sentence each: "Permanent bounce (General).", "smtp; 550 5.1.1 user unknown". */
  details: string[];
  /** The command that clears the address when Pulse stopped mailing it; null when it did not. */
  clearCommand: string | null;
  footer: string;
}

/** A usage rule the service refuses to answer for one product (src/usage-alerts/tell-rule-problems.ts). */
export interface RuleProblemNoticeView {
  ruleId: string;
  /** "Example Desktop (12345678901)". */
  product: string;
  /** What the service answered: "BadRequestError: dateRangeReport: 400 …". */
  reason: string;
  /** What to look at, in a sentence. */
  check: string;
  /** The config field to change: "usageAlerts.rules[2] (id \"versions\"): segment". */
  field: string;
  /** The command that tries the rule again without telling anyone. */
  tryCommand: string;
  footer: string;
}

export interface RenderedNotice extends RenderedEmail {
  subject: string;
}

interface NoticeCommand {
  /** The sentence before the command. */
  hint: string;
  text: string;
}

interface OwnerNotice {
  subject: string;
  title: string;
  weekLabel: string;
  intro: string;
  items: string[];
  outcome: string;
  command: NoticeCommand | null;
  /** A second, alternative command. */
  secondCommand?: NoticeCommand;
  footer: string;
}

export function renderFailureNotice(notice: FailureNoticeView, compiledHtml?: string): RenderedNotice {
  const reasons = notice.reasons.length > 0 ? notice.reasons : ['No reason was recorded.'];
  return renderOwnerNotice(
    {
      subject: `Digest held: ${notice.digestTitle} (${notice.digestId}), ${notice.isoWeek}`,
      title: 'Digest held',
      weekLabel: `${notice.digestTitle} · ${notice.isoWeek}`,
      intro: `The digest “${notice.digestTitle}” (${notice.digestId}) for ${notice.isoWeek} was not sent: a check before sending failed.`,
      items: reasons,
      outcome: `Held at ${notice.heldAt}; no recipient was sent this week's digest.`,
      command: notice.forceCommand
        ? { hint: 'To send it anyway, with a visible “Data incomplete” banner, run:', text: notice.forceCommand }
        : null,
      footer: notice.footer,
    },
    compiledHtml,
  );
}

export function renderUnknownDeliveryNotice(notice: UnknownDeliveryNoticeView, compiledHtml?: string): RenderedNotice {
  return renderOwnerNotice(
    {
      subject: `Delivery unknown: ${notice.subjectLabel}, to ${notice.address}`,
      title: 'Delivery unknown',
      weekLabel: notice.heading,
      intro: `Pulse cannot tell whether ${notice.what} reached ${notice.address}. It will not send it again on its own: a duplicate to a recipient cannot be taken back.`,
      items: [`Send started ${readableUtc(notice.claimedAt)}.`, sentence(notice.reason)],
      outcome: 'Check the mail server’s log (or ask the recipient) before doing anything.',
      command: { hint: 'If it was not delivered, send it again:', text: notice.resendCommand },
      secondCommand: {
        hint: 'If it was delivered, record that instead, and Pulse stops reporting it:',
        text: notice.confirmCommand,
      },
      footer: notice.footer,
    },
    compiledHtml,
  );
}

export function renderRuleProblemNotice(notice: RuleProblemNoticeView, compiledHtml?: string): RenderedNotice {
  return renderOwnerNotice(
    {
      subject: `Usage rule ${notice.ruleId} cannot be judged for ${notice.product}`,
      title: 'Usage rule cannot be judged',
      weekLabel: `Usage alerts · ${notice.ruleId}`,
      intro: `The service refused the report call that the usage rule ${notice.ruleId} needs for ${notice.product}, and will refuse it again until the rule (or the product) changes. Nobody is told of this rule's changes for that product until then.`,
      items: [`The service answered: ${ended(notice.reason)}`, sentence(notice.check), `Config: ${notice.field}.`],
      outcome: 'Each run reports it (exit 1) until it is fixed; this email is sent once for this problem.',
      command: { hint: 'Once the rule is changed, check it without telling anyone:', text: notice.tryCommand },
      footer: notice.footer,
    },
    compiledHtml,
  );
}

const MAIL_EVENT_TITLES: Record<MailEventNoticeView['kind'], string> = {
  bounce: 'Email bounced',
  complaint: 'Complaint received',
  reject: 'Email rejected',
};

export function renderMailEventNotice(notice: MailEventNoticeView, compiledHtml?: string): RenderedNotice {
  const title = MAIL_EVENT_TITLES[notice.kind];
  const intro = {
    bounce: `${capitalized(notice.what)} did not reach ${notice.address}: the receiving mail server returned it.`,
    complaint: `${notice.address} reported ${notice.what} as spam (a complaint, passed on by their mail provider).`,
    reject: `${capitalized(notice.what)} was not sent to ${notice.address}: Amazon SES rejected the message.`,
  }[notice.kind];
  return renderOwnerNotice(
    {
      subject: `${title}: ${notice.subjectLabel}, to ${notice.address}`,
      title,
      weekLabel: notice.heading,
      intro,
      // Not capitalized: a detail may start with an address, and the mail server's words are quoted as they came.
      items: [`Reported ${readableUtc(notice.at)}.`, ...notice.details.map(ended)],
      outcome: notice.clearCommand
        ? `Pulse sends nothing more to ${notice.address} until the address is cleared: mail that keeps bouncing, or that recipients call spam, harms every Pulse email's delivery.`
        : `Pulse still sends to ${notice.address}: nothing needs doing unless it happens again.`,
      command: notice.clearCommand
        ? {
            hint: 'Once the address works again (or the recipient asked for the mail), clear it:',
            text: notice.clearCommand,
          }
        : null,
      footer: notice.footer,
    },
    compiledHtml,
  );
}

const capitalized = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
/** `2026-11-16T07:00:04.120Z` → `2026-11-16 07:00 UTC`; anything else as it is. */
const readableUtc = (iso: string) =>
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(iso) ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : iso;
/** Ended with a full stop unless it ends in punctuation already. */
const ended = (text: string) => {
  const t = text.trim();
  return `${t}${/[.!?)]$/.test(t) ? '' : '.'}`;
};
/** Capitalized and ended. */
const sentence = (text: string) => capitalized(ended(text));

function renderOwnerNotice(n: OwnerNotice, compiledHtml?: string): RenderedNotice {
  const html = loadTemplate('failure-notice', compiledHtml).render({
    title: n.title,
    weekLabel: n.weekLabel,
    preview: n.items[0] ?? n.intro,
    intro: n.intro,
    reasons: n.items,
    outcome: n.outcome,
    command: n.command?.text ?? null,
    commandHint: n.command?.hint ?? '',
    secondCommand: n.secondCommand?.text ?? null,
    secondCommandHint: n.secondCommand?.hint ?? '',
    viewInBrowserUrl: null,
    footer: n.footer,
  });
  const lines = [n.subject, '', n.intro, '', ...n.items.map((r) => `- ${r}`), '', n.outcome];
  for (const c of [n.command, n.secondCommand]) if (c) lines.push('', c.hint, `  ${c.text}`);
  lines.push('', n.footer);
  return { subject: n.subject, html, text: `${lines.join('\n')}\n` };
}
