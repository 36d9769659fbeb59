/**
 * The Slack renderer (src/core/channels/slack.ts): the Block Kit layout of a channel message, every SLACK_LIMITS
 * value for any message (fast-check, 10 KB strings, lone surrogates, right-to-left text, emoji), sections dropped
 * beyond the block budget with a count, and service text that never mentions, links or formats in mrkdwn.
 */
import type { ContextBlock, KnownBlock, SectionBlock } from '@slack/types';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SLACK_LIMITS } from '../../../src/core/channels/limits.ts';
import { renderSlack } from '../../../src/core/channels/slack.ts';
import { escapeMrkdwn } from '../../../src/core/channels/slack-text.ts';
import { anyMessage, expectInertMrkdwn, expectSlackWithinLimits, mrkdwnTexts } from './channel-checks.ts';
import { sampleMessage } from './sample-messages.ts';

const ofType = <T extends KnownBlock['type']>(blocks: KnownBlock[], type: T) =>
  blocks.filter((b): b is Extract<KnownBlock, { type: T }> => b.type === type);
const texts = (blocks: KnownBlock[]) => JSON.stringify(blocks);

describe('renderSlack', () => {
  it('lays a message out as header, summary, facts, chart, sections, button and context', () => {
    const p = renderSlack(sampleMessage({ moreSections: 'and 41 more keys' }));
    expect(p.blocks.map((b) => b.type)).toEqual([
      'header',
      'section',
      'section',
      'image',
      'divider',
      'section',
      'section',
      'actions',
      'context',
    ]);
    const [header, summary, facts, image, , key1, , actions, context] = p.blocks as [KnownBlock, ...KnownBlock[]];
    expect(header).toMatchObject({ text: { type: 'plain_text', text: 'License alerts · Example Desktop' } });
    expect(summary).toMatchObject({
      text: {
        type: 'mrkdwn',
        verbatim: true,
        text: '3 license keys need attention in Example Desktop\n• 2 keys expire within 7 days\n• 1 key is over its seat limit',
      },
    });
    expect((facts as SectionBlock).fields?.map((f) => [f.type, f.text])).toEqual([
      ['plain_text', 'Keys: 3'],
      ['plain_text', 'Clients: 1,204'],
    ]);
    expect(image).toEqual({
      type: 'image',
      image_url: 'https://reports.example.com/charts/keys.png',
      alt_text: 'Clients per key, last 30 days',
    });
    expect(key1).toMatchObject({
      text: { type: 'mrkdwn', text: '*KEY-0001*\nexpires in 7 days · 12 clients' },
      fields: [{ type: 'plain_text', text: 'Seats: 12 of 20' }],
    });
    expect(actions).toMatchObject({
      elements: [
        {
          type: 'button',
          text: { type: 'plain_text', text: 'Full report' },
          url: 'https://reports.example.com/licenses/2026-11-20.html',
        },
      ],
    });
    expect((context as ContextBlock).elements).toEqual([
      { type: 'plain_text', text: 'and 41 more keys', emoji: false },
    ]);
    expect(p.text).toBe('3 license keys need attention in Example Desktop');
    expect(p).toMatchObject({ unfurl_links: false, unfurl_media: false });
    expectSlackWithinLimits(p);
  });

  it('leaves out what a message does not have: no chart, no link, no sections, no context', () => {
    const { image: _i, link: _l, ...bare } = sampleMessage({ sections: [], lines: [], facts: [] });
    expect(renderSlack(bare).blocks.map((b) => b.type)).toEqual(['header', 'section']);
  });

  it('drops sections beyond the block budget and says how many in the last context block', () => {
    const sections = Array.from({ length: 120 }, (_, i) => ({ title: `KEY-${i}`, facts: [] }));
    const p = renderSlack(sampleMessage({ sections, moreSections: 'and 900 more keys' }));
    expect(p.blocks).toHaveLength(SLACK_LIMITS.blocks);
    const shown = ofType(p.blocks, 'section').filter((b) => b.text?.text.startsWith('*KEY-'));
    expect(shown.map((b) => b.text!.text)).toEqual(sections.slice(0, shown.length).map((s) => `*${s.title}*`));
    const context = p.blocks.at(-1) as ContextBlock;
    expect(context.elements.map((e) => ('text' in e ? e.text : ''))).toEqual([
      'and 900 more keys',
      `${120 - shown.length} more sections not shown`,
    ]);
    expectSlackWithinLimits(p);
  });

  it('shows at most the field limit of facts, the last field saying how many more', () => {
    const facts = Array.from({ length: 25 }, (_, i) => ({ label: `F${i}`, value: String(i) }));
    const p = renderSlack(sampleMessage({ facts }));
    const fields = ofType(p.blocks, 'section')[1]!.fields!;
    expect(fields).toHaveLength(SLACK_LIMITS.sectionFields);
    expect(fields.at(-1)!.text).toBe(`${25 - SLACK_LIMITS.sectionFields + 1} more figures not shown`);
  });

  it('cuts long text with an ellipsis at the limit, never inside a surrogate pair or an entity', () => {
    const emoji = '😀'.repeat(200);
    const p = renderSlack(sampleMessage({ title: emoji, summary: '&'.repeat(5000) }));
    const header = ofType(p.blocks, 'header')[0]!.text.text;
    expect(header).toBe(`${'😀'.repeat((SLACK_LIMITS.headerText - 1) / 2)}…`);
    expect(header.isWellFormed()).toBe(true);
    const summary = ofType(p.blocks, 'section')[0]!.text!.text;
    expect(summary).toMatch(/^(&amp;)+…$/);
    expect(summary.length).toBeLessThanOrEqual(SLACK_LIMITS.sectionText);
    expect(p.text).toMatch(/^(&amp;)+…$/);
  });

  it('keeps only http(s) URLs that fit, since a URL cannot be cut', () => {
    const long = `https://reports.example.com/${'a'.repeat(SLACK_LIMITS.url)}`;
    const p = renderSlack(
      sampleMessage({ image: { url: 'javascript:alert(1)', alt: 'x' }, link: { label: 'Full report', url: long } }),
    );
    expect(p.blocks.map((b) => b.type)).not.toContain('image');
    expect(p.blocks.map((b) => b.type)).not.toContain('actions');
  });

  it('turns mentions, links and formatting in service text into text', () => {
    const hostile = '<!channel> <@U123> <https://evil.example|click> *b* _i_ ~s~ `c` & > x';
    const p = renderSlack(
      sampleMessage({
        title: hostile,
        summary: hostile,
        lines: [hostile],
        sections: [{ title: hostile, text: `> ${hostile}`, facts: [] }],
      }),
    );
    for (const t of mrkdwnTexts(p)) expectInertMrkdwn(t);
    expect(ofType(p.blocks, 'section')[0]!.text!.text).toContain(
      '&lt;!channel&gt; &lt;@U123&gt; &lt;https://evil.example|click&gt; ∗b∗ ˍiˍ ∼s∼ ˋcˋ &amp; &gt; x',
    );
    expect(ofType(p.blocks, 'header')[0]!.text).toEqual({ type: 'plain_text', text: hostile, emoji: false });
    expect(texts(p.blocks)).toContain('\\n\u00AD&gt; &lt;!channel&gt;');
  });

  it('escapes a quote only where it starts a line, with an invisible soft hyphen', () => {
    expect(escapeMrkdwn('> a\nb > c\n＞ d')).toBe('\u00AD&gt; a\nb &gt; c\n\u00AD＞ d');
  });

  it('stays within every limit, round-trips as JSON and formats nothing, for any message', () => {
    fc.assert(
      fc.property(anyMessage, (m) => {
        const p = renderSlack(m);
        expectSlackWithinLimits(p);
        for (const t of mrkdwnTexts(p)) expectInertMrkdwn(t);
      }),
      // Reported as found: shrinking messages of 10 KB strings takes minutes.
      { numRuns: 150, endOnFailure: true },
    );
  });
});
