/**
 * What the channel renderer tests hold every payload to, in one place (test/core/channels/*.test.ts and
 * test/security/hostile-channels.test.ts): the hostile corpus, fast-check messages with hostile and huge text, every
 * SLACK_LIMITS value, "this mrkdwn / card markdown is inert", and a card read by the official Adaptive Cards library.
 * The sample messages are in sample-messages.ts, which bench/channels.ts also uses.
 */
import { createRequire } from 'node:module';
import type { KnownBlock } from '@slack/types';
import fc from 'fast-check';
import { expect } from 'vitest';
import type { ChannelMessage } from '../../../src/core/channels/channel-message.ts';
import { SLACK_LIMITS, TEAMS_LIMITS } from '../../../src/core/channels/limits.ts';
import type { SlackPayload } from '../../../src/core/channels/slack.ts';
import type { TeamsCard, TeamsPayload } from '../../../src/core/channels/teams.ts';

/** Code points, the way a service may count. */
const codePoints = (s: string) => [...s].length;

/** A string within `limit` by both counts, non-blank, well-formed. */
export function expectText(s: string, limit: number) {
  expect(s.length).toBeLessThanOrEqual(limit);
  expect(codePoints(s)).toBeLessThanOrEqual(limit);
  expect(s.trim()).not.toBe('');
  expect(s.isWellFormed()).toBe(true);
}

/** Every SLACK_LIMITS value, block by block. */
export function expectSlackWithinLimits(p: SlackPayload) {
  expectText(p.text, SLACK_LIMITS.text);
  expect(p.blocks.length).toBeLessThanOrEqual(SLACK_LIMITS.blocks);
  for (const b of p.blocks as KnownBlock[]) {
    if (b.type === 'header') expectText(b.text.text, SLACK_LIMITS.headerText);
    if (b.type === 'section') {
      expect(b.text ?? b.fields).toBeDefined();
      if (b.text) expectText(b.text.text, SLACK_LIMITS.sectionText);
      expect(b.fields?.length ?? 0).toBeLessThanOrEqual(SLACK_LIMITS.sectionFields);
      for (const f of b.fields ?? []) expectText(f.text, SLACK_LIMITS.fieldText);
    }
    if (b.type === 'image') {
      expectText(b.alt_text, SLACK_LIMITS.imageAltText);
      expect('image_url' in b && b.image_url.length).toBeLessThanOrEqual(SLACK_LIMITS.url);
    }
    if (b.type === 'actions') {
      for (const e of b.elements) {
        if (e.type !== 'button') throw new Error(`unexpected element ${e.type}`);
        expectText(e.text.text, SLACK_LIMITS.buttonText);
        expect(e.url!.length).toBeLessThanOrEqual(SLACK_LIMITS.url);
      }
    }
    if (b.type === 'context') {
      expect(b.elements.length).toBeLessThanOrEqual(SLACK_LIMITS.contextElements);
      for (const e of b.elements) expectText('text' in e ? e.text : '', SLACK_LIMITS.fieldText);
    }
  }
  expect(JSON.parse(JSON.stringify(p))).toEqual(p);
}

/** Every mrkdwn text of a payload: the notification text and each mrkdwn text object. */
export function mrkdwnTexts(p: SlackPayload): string[] {
  const out = [p.text];
  for (const b of p.blocks) if (b.type === 'section' && b.text?.type === 'mrkdwn') out.push(b.text.text);
  return out;
}

/**
 * mrkdwn that can mention, link or format nothing: no `<` or `>`, every `&` an entity Slack documents, no
 * formatting character but the `*…*` pair a section title is set in, and no `&gt;` opening a line (a quote).
 */
export function expectInertMrkdwn(text: string) {
  const title = /^\*([^*\n]+)\*(?:\n|$)/.exec(text);
  const rest = title ? text.slice(title[0].length) : text;
  for (const part of [title?.[1] ?? '', rest]) expect(part, text).not.toMatch(/[<>*_~`＊＿｀]/);
  expect(text.replace(/&(amp|lt|gt);/g, ''), text).not.toContain('&');
  expect(text, text).not.toMatch(/(^|\n)(&gt;|＞)/);
}

/**
 * Card markdown with every markup character backslash-escaped: each escaped pair is read as a plain letter, and what
 * is left has no inline markup character and no line opening with a block marker (CommonMark's reading).
 */
export function expectInertCardMarkdown(text: string) {
  const read = text.replace(/\\[!-/:-@[-`{-~]/g, 'e');
  expect(read, text).not.toMatch(/[\\*_`~[\]<>&{}]/);
  expect(read, text).not.toMatch(/(^|\n)[ \t]*([#+=-]|\d+[.)](?=[ \t\n]|$))/);
}

const AC = createRequire(import.meta.url)('adaptivecards/dist/adaptivecards.min.js');

/** The card as the official Adaptive Cards library reads it: no warning, the declared version, what it keeps. */
export function parseCard(card: TeamsCard): { events: string[]; version: string; json: Record<string, unknown> } {
  const ctx = new AC.SerializationContext();
  const parsed = new AC.AdaptiveCard();
  parsed.parse(card, ctx);
  const events = Array.from({ length: ctx.eventCount }, (_, i) => String(ctx.getEventAt(i).message));
  return { events, version: parsed.version.toString(), json: parsed.toJSON() };
}

export function expectTeamsValid(p: TeamsPayload) {
  expect(Buffer.byteLength(JSON.stringify(p))).toBeLessThanOrEqual(TEAMS_LIMITS.payloadBytes);
  const { events, version } = parseCard(p.attachments[0].content);
  expect(events).toEqual([]);
  expect(version).toBe(TEAMS_LIMITS.cardVersion);
}

/** Every markdown string of a card: TextBlock texts and fact titles and values, nested containers included. */
export function cardMarkdown(elements: unknown[]): string[] {
  return elements.flatMap((e) => {
    const el = e as { type: string; text?: string; items?: unknown[]; facts?: { title: string; value: string }[] };
    if (el.type === 'TextBlock') return [el.text!];
    if (el.type === 'FactSet') return el.facts!.flatMap((f) => [f.title, f.value]);
    if (el.type === 'Container') return cardMarkdown(el.items!);
    return [];
  });
}

/** Hostile text the renderers meet in service data. */
export const HOSTILE = [
  '<script>alert(1)</script>',
  '<!channel> <!here> <!everyone>',
  '<@U123> <#C123> <!subteam^S1>',
  '<https://evil.example|click here>',
  '[a](https://evil.example) ![i](https://evil.example/x.png)',
  '**b** *bold* _it_ ~strike~ `code` ```block```',
  '*',
  '&',
  '<',
  '>',
  '&amp; &lt;x&gt;',
  '> quoted\n# heading\n- item\n1. first\n===',
  '<at>Everyone</at>',
  '{{DATE(2026-11-20T08:00:00Z, SHORT)}}',
  'Example \u202EcodeCleaner.exe',
  'שלום עולם — مرحبا بالعالم',
  'nul\u0000bell\u0007esc\u001B del\u007F c1\u0085 crlf\r\nend',
  '👩‍👩‍👧‍👦 emoji ✅',
  'x'.repeat(10 * 1024),
  'ש'.repeat(10 * 1024),
];

/** Any text: hostile, arbitrary code points, lone surrogates, 10 KB of something. */
export const anyText = fc.oneof(
  fc.constantFrom(...HOSTILE),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)), maxLength: 5 }),
  fc
    .tuple(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 4 }), fc.integer({ min: 100, max: 10240 }))
    .map(([s, n]) => s.repeat(Math.ceil(n / s.length)).slice(0, n)),
);

const fact = fc.record({ label: anyText, value: anyText });
const url = fc.oneof(
  fc.constant('https://reports.example.com/r.html'),
  fc.constant('javascript:alert(1)'),
  fc.constant(`https://reports.example.com/${'a'.repeat(4000)}`),
  anyText,
);

/** A channel message with anything in every field. */
export const anyMessage: fc.Arbitrary<ChannelMessage> = fc
  .record({
    title: anyText,
    summary: anyText,
    lines: fc.array(anyText, { maxLength: 12 }),
    facts: fc.array(fact, { maxLength: 14 }),
    sections: fc.array(
      fc.record({
        title: anyText,
        text: fc.option(anyText, { nil: undefined }),
        facts: fc.array(fact, { maxLength: 12 }),
      }),
      { maxLength: 70, size: 'max' },
    ),
    moreSections: fc.option(anyText, { nil: undefined }),
    image: fc.option(fc.record({ url, alt: anyText }), { nil: undefined }),
    link: fc.option(fc.record({ label: anyText, url }), { nil: undefined }),
  })
  .map(
    ({ moreSections, image, link, sections, ...rest }): ChannelMessage => ({
      event: 'digest.sent',
      occurredAt: '2026-11-20T08:00:00.000Z',
      data: {},
      ...rest,
      sections: sections.map(({ text, ...s }) => (text === undefined ? s : { ...s, text })),
      ...(moreSections !== undefined ? { moreSections } : {}),
      ...(image ? { image } : {}),
      ...(link ? { link } : {}),
    }),
  );
