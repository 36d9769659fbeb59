/**
 * Hostile service text through every channel renderer (issue 24): markup (`<script>`, `<!channel>`, `<@U1>`,
 * `<https://x|y>`, `[a](https://evil)`, `**b**`, `*`, `&`, `<`, `>`), 10 KB strings, a right-to-left override,
 * Hebrew and Arabic, NUL and other control characters, in every field of a channel message. What must hold: each
 * payload is valid JSON within its channel's limits; Slack mrkdwn and card markdown hold no live markup; every chat
 * text shows the hostile string as it is (escaped, or cut with an ellipsis), with only the characters that cannot
 * show (controls, bidi overrides) replaced by U+FFFD; the webhook event carries it byte for byte, signed.
 */
import { randomBytes } from 'node:crypto';
import type { KnownBlock } from '@slack/types';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import type { ChannelMessage } from '../../src/core/channels/channel-message.ts';
import { renderChannelRequest } from '../../src/core/channels/render-channel.ts';
import type { SlackPayload } from '../../src/core/channels/slack.ts';
import type { TeamsPayload } from '../../src/core/channels/teams.ts';
import { channelEventId } from '../../src/core/channels/webhook-event.ts';
import {
  cardMarkdown,
  expectInertCardMarkdown,
  expectInertMrkdwn,
  expectSlackWithinLimits,
  expectTeamsValid,
  HOSTILE,
  mrkdwnTexts,
} from '../core/channels/channel-checks.ts';

const secret = `whsec_${randomBytes(24).toString('base64')}`;

const message = (h: string): ChannelMessage => ({
  event: 'license.alerts',
  title: h,
  summary: h,
  lines: [h, h],
  facts: [{ label: h, value: h }],
  sections: [{ title: h, text: h, facts: [{ label: h, value: h }] }],
  moreSections: h,
  image: { url: 'https://reports.example.com/c.png', alt: h },
  link: { label: h, url: 'https://reports.example.com/r.html' },
  occurredAt: '2026-11-20T08:00:00.000Z',
  data: { product: h },
});

/** Controls other than tab and line feed, bidi embeddings, overrides and isolates: what a chat must not receive. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const UNSHOWABLE = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g;

/** How a chat shows `h`: characters that cannot show as U+FFFD, CR LF as LF, a title on one line. */
function shown(h: string, title = false): string {
  const visible = h.toWellFormed().replace(/\r\n?/g, '\n').replace(UNSHOWABLE, '\uFFFD');
  return title ? visible.replace(/\s*\n\s*/g, ' ').trim() : visible;
}

/** `displayed` is `expected`, or a prefix of it cut with an ellipsis. */
function expectShows(displayed: string, expected: string) {
  if (displayed === expected) return;
  expect(displayed.endsWith('…'), displayed.slice(0, 200)).toBe(true);
  expect(expected.startsWith(displayed.slice(0, -1)), displayed.slice(0, 200)).toBe(true);
  expect(displayed.length).toBeGreaterThan(1);
}

const LOOK_ALIKES: Record<string, string> = { '∗': '*', '﹡': '＊', ˍ: '_', '⸏': '＿', '∼': '~', ˋ: '`' };
const readMrkdwn = (t: string) =>
  t
    .replace(/\u00AD(&gt;|＞)/g, '$1')
    .replace(/[∗﹡ˍ⸏∼ˋ]/g, (c) => LOOK_ALIKES[c]!)
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
const readCard = (t: string) => t.replace(/\\([!-/:-@[-`{-~])/g, '$1');

/** Every string of a JSON value. */
const strings = (v: unknown): string[] =>
  typeof v === 'string' ? [v] : v && typeof v === 'object' ? Object.values(v).flatMap(strings) : [];

describe.each(HOSTILE.map((h) => [h.length > 60 ? `${h.slice(0, 20)}… (${h.length})` : JSON.stringify(h), h]))(
  'hostile text %s',
  (_name, h) => {
    const opts = { eventId: channelEventId(`hostile:${h}`), signingSecret: secret, now: new Date() };

    it('Slack: valid JSON within every limit, no live markup, the text as it is', () => {
      const p = JSON.parse(renderChannelRequest('slack', message(h), opts).body) as SlackPayload;
      expectSlackWithinLimits(p);
      for (const t of mrkdwnTexts(p)) expectInertMrkdwn(t);
      const blocks = p.blocks as KnownBlock[];
      const header = blocks.find((b) => b.type === 'header')!;
      expectShows(header.text.text, shown(h, true));
      const [summary, facts, section] = blocks.filter((b) => b.type === 'section');
      expectShows(readMrkdwn(summary!.text!.text), `${shown(h)}\n• ${shown(h)}\n• ${shown(h)}`);
      expectShows(facts!.fields![0]!.text, `${shown(h)}: ${shown(h)}`);
      const [title, ...text] = section!.text!.text.split('\n');
      expectShows(readMrkdwn(title!.replace(/^\*(.*)\*$/, '$1')), shown(h, true));
      expectShows(readMrkdwn(text.join('\n')), shown(h));
      expectShows(readMrkdwn(p.text), shown(h));
      for (const s of strings(p)) expect(s.match(UNSHOWABLE)).toBeNull();
    });

    it('Teams: valid JSON within the payload limit, a clean parse, no live markup, the text as it is', () => {
      const p = JSON.parse(renderChannelRequest('teams', message(h), opts).body) as TeamsPayload;
      expectTeamsValid(p);
      const body = p.attachments[0].content.body;
      const texts = cardMarkdown(body);
      for (const t of texts) expectInertCardMarkdown(t);
      const [title, summary, line1, line2, factTitle, factValue, sectionTitle, sectionText] = texts.map(readCard);
      expectShows(title!, shown(h, true));
      for (const t of [summary, factTitle, factValue, sectionText]) expectShows(t!, shown(h));
      for (const t of [line1, line2]) expectShows(t!, `• ${shown(h)}`);
      expectShows(sectionTitle!, shown(h, true));
      for (const s of strings(p)) expect(s.match(UNSHOWABLE)).toBeNull();
    });

    it('webhook: the data byte for byte, and a signature the scheme verifies', () => {
      const { body, headers } = renderChannelRequest('webhook', message(h), opts);
      const event = new Webhook(secret).verify(body, headers) as { data: { product: string } };
      expect(event.data.product).toBe(h);
    });
  },
);
