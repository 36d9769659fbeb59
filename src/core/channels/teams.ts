/**
 * A channel message as the body a Teams Workflows webhook ("Post card in a chat or channel") takes: a message
 * envelope with one Adaptive Card (version TEAMS_LIMITS.cardVersion, full width) holding the title, the summary,
 * what changed, the headline facts, the chart, a Container per section and an Open URL action for the full report.
 * Service text is escaped for the card's markdown (teams-text.ts).
 *
 * The whole envelope must stay within TEAMS_LIMITS.payloadBytes of UTF-8 JSON or the flow refuses it. When it does
 * not fit, the card is shrunk level by level (LEVELS: every string cut to so many characters, every list to so many
 * items, each cut saying so) until its head (everything but the sections) takes at most half the budget and at least
 * one section fits after it; sections that still do not fit are left out from the end, and a line says how many.
 * So a message of many ordinary sections loses sections, never text, while one of a few huge strings loses text.
 */
import type { ChannelFact, ChannelMessage, ChannelSection } from './channel-message.ts';
import { fitText, nonBlank, notShown, webUrl } from './channel-text.ts';
import { TEAMS_LIMITS } from './limits.ts';
import { CARD_MARKDOWN } from './teams-text.ts';

type Element = Record<string, unknown>;

export interface TeamsCard {
  $schema: 'http://adaptivecards.io/schemas/adaptive-card.json';
  type: 'AdaptiveCard';
  version: string;
  body: Element[];
  actions: Element[];
  msteams: { width: 'Full' };
}

export interface TeamsPayload {
  type: 'message';
  attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive'; contentUrl: null; content: TeamsCard }];
}

interface Level {
  /** Characters of each string (escaped), ellipsis included. */
  chars: number;
  /** Lines, and facts of each fact set, shown; beyond, the last one says how many were left out. */
  items: number;
}

const LEVELS: Level[] = [
  { chars: Number.POSITIVE_INFINITY, items: Number.POSITIVE_INFINITY },
  { chars: 2000, items: 50 },
  { chars: 500, items: 20 },
  { chars: 150, items: 10 },
  { chars: 40, items: 5 },
];

/** Teams documents no limit; the longest URL every browser opens, and short enough for the last level to fit. */
const URL_MAX = 2048;

type Kind = 'text' | 'title';
const markdown = (text: string, level: Level, kind: Kind = 'text') =>
  nonBlank(fitText(text, level.chars, CARD_MARKDOWN, kind));
const plain = (text: string, level: Level) => nonBlank(fitText(text, level.chars));

const textBlock = (text: string, level: Level, style: Element = {}, kind: Kind = 'text'): Element => ({
  type: 'TextBlock',
  text: markdown(text, level, kind),
  wrap: true,
  ...style,
});

function factSet(facts: ChannelFact[], level: Level): Element[] {
  if (facts.length === 0) return [];
  const shown = facts.length > level.items ? facts.slice(0, level.items - 1) : facts;
  const rows = shown.map((f) => ({ title: markdown(f.label, level), value: markdown(f.value, level) }));
  if (shown.length < facts.length) rows.push({ title: '…', value: notShown(facts.length - shown.length, 'figure') });
  return [{ type: 'FactSet', facts: rows }];
}

function lineBlocks(lines: string[], level: Level): Element[] {
  const shown = lines.length > level.items ? lines.slice(0, level.items - 1) : lines;
  const blocks = shown.map((line) => textBlock(`• ${line}`, level));
  if (shown.length < lines.length) blocks.push(textBlock(notShown(lines.length - shown.length, 'line'), level));
  return blocks;
}

function head(message: ChannelMessage, level: Level): Element[] {
  const image = message.image && webUrl(message.image.url, URL_MAX);
  return [
    textBlock(message.title, level, { weight: 'Bolder', size: 'Medium', style: 'heading' }, 'title'),
    ...(message.summary.trim() !== '' ? [textBlock(message.summary, level)] : []),
    ...lineBlocks(message.lines, level),
    ...factSet(message.facts, level),
    ...(message.image && image ? [{ type: 'Image', url: image, altText: plain(message.image.alt, level) }] : []),
  ];
}

const container = (section: ChannelSection, level: Level): Element => ({
  type: 'Container',
  separator: true,
  items: [
    textBlock(section.title, level, { weight: 'Bolder' }, 'title'),
    ...(section.text && section.text.trim() !== '' ? [textBlock(section.text, level, { isSubtle: true })] : []),
    ...factSet(section.facts, level),
  ],
});

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/**
 * The card at `level` with as many sections as fit, or undefined when it does not do (its head takes more than half
 * the budget and not every section fits after it). The head is measured once; sections are built one by one until
 * the next would not fit: JSON joins the body's elements with commas after the title, so each adds its bytes and one.
 */
function cardAt(message: ChannelMessage, level: Level): TeamsPayload | undefined {
  const link = message.link && webUrl(message.link.url, URL_MAX);
  const actions =
    message.link && link ? [{ type: 'Action.OpenUrl', title: plain(message.link.label, level), url: link }] : [];
  const more = message.moreSections ? [textBlock(message.moreSections, level, { isSubtle: true })] : [];
  const note = (dropped: number) => textBlock(notShown(dropped, 'section'), level, { isSubtle: true });
  const envelope = (body: Element[]): TeamsPayload => ({
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: TEAMS_LIMITS.cardVersion,
          body,
          actions,
          msteams: { width: 'Full' },
        },
      },
    ],
  });
  const top = head(message, level);
  const all = message.sections.length;
  let bytes = jsonBytes(envelope([...top, ...more]));
  const fitsWith = (dropped: number) => bytes + (dropped > 0 ? jsonBytes(note(dropped)) + 1 : 0);
  const headFitsHalf = fitsWith(all) <= TEAMS_LIMITS.payloadBytes / 2;
  if (fitsWith(all) > TEAMS_LIMITS.payloadBytes) return undefined;
  const sections: Element[] = [];
  for (const section of message.sections) {
    const element = container(section, level);
    const added = jsonBytes(element) + 1;
    if (fitsWith(all - sections.length - 1) + added > TEAMS_LIMITS.payloadBytes) break;
    sections.push(element);
    bytes += added;
  }
  const dropped = all - sections.length;
  if (dropped > 0 && (sections.length === 0 || !headFitsHalf)) return undefined;
  return envelope([...top, ...sections, ...more, ...(dropped > 0 ? [note(dropped)] : [])]);
}

export function renderTeams(message: ChannelMessage): TeamsPayload {
  for (const level of LEVELS) {
    const card = cardAt(message, level);
    if (card) return card;
  }
  // The last level bounds every string and list, so its head and one section always fit.
  throw new Error('a Teams card did not fit at the smallest level');
}
