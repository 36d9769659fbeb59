/**
 * A channel message as a Slack incoming-webhook payload (Block Kit): the header, the summary with what changed, the
 * headline figures, the chart, one section per product or key, a "Full report" button and a closing context line.
 * Every block stays within SLACK_LIMITS (Slack refuses the whole message with `invalid_blocks` otherwise): text is cut
 * with an ellipsis, sections beyond the block budget are left out and the context line says how many. Service text
 * goes into plain_text objects wherever Block Kit takes them and is escaped where mrkdwn is needed (slack-text.ts).
 */
import type {
  ActionsBlock,
  ContextBlock,
  ImageBlock,
  KnownBlock,
  MrkdwnElement,
  PlainTextElement,
  SectionBlock,
} from '@slack/types';
import type { ChannelFact, ChannelMessage, ChannelSection } from './channel-message.ts';
import { AS_IS, fitText, nonBlank, notShown, webUrl } from './channel-text.ts';
import { SLACK_LIMITS } from './limits.ts';
import { MRKDWN } from './slack-text.ts';

export interface SlackPayload {
  /** The notification text (and what a client without blocks shows): mrkdwn, so escaped. */
  text: string;
  blocks: KnownBlock[];
  /** A URL in service text must not unfurl into a preview of whatever it points at. */
  unfurl_links: false;
  unfurl_media: false;
}

/** Slack states no limit for a context element's text: a field's, the smaller of the text limits, is kept. */
const CONTEXT_TEXT = SLACK_LIMITS.fieldText;

/** `:name:` stays as typed: plain_text would otherwise turn service text into emoji. */
const plain = (text: string, limit: number, kind: 'text' | 'title' = 'text'): PlainTextElement => ({
  type: 'plain_text',
  text: nonBlank(fitText(text, limit, AS_IS, kind)),
  emoji: false,
});

/** Service text already cleaned, escaped and cut; `verbatim` keeps Slack from linking bare names and URLs. */
const mrkdwn = (text: string): MrkdwnElement => ({ type: 'mrkdwn', text: nonBlank(text), verbatim: true });

/** One field per fact; beyond the section's field limit the last field says how many were left out. */
function fields(facts: ChannelFact[]): PlainTextElement[] {
  const shown = facts.length > SLACK_LIMITS.sectionFields ? facts.slice(0, SLACK_LIMITS.sectionFields - 1) : facts;
  const out = shown.map((f) => plain(`${f.label}: ${f.value}`, SLACK_LIMITS.fieldText));
  if (shown.length < facts.length)
    out.push(plain(notShown(facts.length - shown.length, 'figure'), SLACK_LIMITS.fieldText));
  return out;
}

/** The summary and what changed, one bullet each. */
function summaryBlock(message: ChannelMessage): SectionBlock | undefined {
  const parts = [message.summary, ...message.lines.map((line) => `• ${line}`)].filter((p) => p.trim() !== '');
  if (parts.length === 0) return undefined;
  return {
    type: 'section',
    text: mrkdwn(fitText(parts.join('\n'), SLACK_LIMITS.sectionText, MRKDWN)),
  };
}

/** The title in bold (a heading's length at most), its line under it, the facts as fields. */
function sectionBlock(section: ChannelSection): SectionBlock {
  const title = fitText(section.title, SLACK_LIMITS.headerText - 2, MRKDWN, 'title');
  const heading = title === '' ? '' : `*${title}*`;
  const room = SLACK_LIMITS.sectionText - heading.length - 1;
  const line = section.text ? fitText(section.text, room, MRKDWN) : '';
  const text = [heading, line].filter((t) => t.trim() !== '').join('\n');
  const facts = fields(section.facts);
  return {
    type: 'section',
    ...(text !== '' || facts.length === 0 ? { text: mrkdwn(text) } : {}),
    ...(facts.length > 0 ? { fields: facts } : {}),
  };
}

function imageBlock(image: ChannelMessage['image']): ImageBlock | undefined {
  const url = image && webUrl(image.url, SLACK_LIMITS.url);
  if (!image || !url) return undefined;
  return {
    type: 'image',
    image_url: url,
    alt_text: nonBlank(fitText(image.alt, SLACK_LIMITS.imageAltText)),
  };
}

function actionsBlock(link: ChannelMessage['link']): ActionsBlock | undefined {
  const url = link && webUrl(link.url, SLACK_LIMITS.url);
  if (!link || !url) return undefined;
  return {
    type: 'actions',
    elements: [{ type: 'button', action_id: 'open-link', text: plain(link.label, SLACK_LIMITS.buttonText), url }],
  };
}

function contextBlock(moreSections: string | undefined, dropped: number): ContextBlock | undefined {
  const notes = [...(moreSections ? [moreSections] : []), ...(dropped > 0 ? [notShown(dropped, 'section')] : [])];
  if (notes.length === 0) return undefined;
  return { type: 'context', elements: notes.map((note) => plain(note, CONTEXT_TEXT)) };
}

export function renderSlack(message: ChannelMessage): SlackPayload {
  const head: KnownBlock[] = [{ type: 'header', text: plain(message.title, SLACK_LIMITS.headerText, 'title') }];
  const summary = summaryBlock(message);
  if (summary) head.push(summary);
  if (message.facts.length > 0) head.push({ type: 'section', fields: fields(message.facts) });
  const image = imageBlock(message.image);
  if (image) head.push(image);
  const actions = actionsBlock(message.link);

  // What is left of the block budget after the fixed blocks, the divider and a context line that may be needed.
  const fixed = head.length + (actions ? 1 : 0);
  const all = message.sections.length;
  const withoutContext = SLACK_LIMITS.blocks - fixed - (all > 0 ? 1 : 0) - (message.moreSections ? 1 : 0);
  const kept = all <= withoutContext ? all : Math.max(0, withoutContext - (message.moreSections ? 0 : 1));
  const sections = message.sections.slice(0, kept).map(sectionBlock);
  const context = contextBlock(message.moreSections, all - kept);

  const blocks: KnownBlock[] = [
    ...head,
    ...(sections.length > 0 ? [{ type: 'divider' } as const, ...sections] : []),
    ...(actions ? [actions] : []),
    ...(context ? [context] : []),
  ];
  const text = message.summary.trim() !== '' ? message.summary : message.title;
  return {
    text: nonBlank(fitText(text, SLACK_LIMITS.text, MRKDWN)),
    blocks,
    unfurl_links: false,
    unfurl_media: false,
  };
}
