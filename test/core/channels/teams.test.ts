/**
 * The Teams renderer (src/core/channels/teams.ts): the Workflows envelope and its Adaptive Card, read by the official
 * Adaptive Cards library (no warning, the declared version, every element and property we use known to it), the
 * card markdown escaping, and the fit within TEAMS_LIMITS.payloadBytes: many sections are dropped with a count, huge
 * strings are cut, and any message (fast-check, 10 KB strings in every field) fits and parses cleanly.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TEAMS_LIMITS } from '../../../src/core/channels/limits.ts';
import { renderTeams } from '../../../src/core/channels/teams.ts';
import { escapeCardMarkdown } from '../../../src/core/channels/teams-text.ts';
import { anyMessage, cardMarkdown, expectInertCardMarkdown, expectTeamsValid, parseCard } from './channel-checks.ts';
import { hugeMessage, sampleMessage } from './sample-messages.ts';

const bodyOf = (m = sampleMessage()) => renderTeams(m).attachments[0].content.body as Record<string, unknown>[];
const bytes = (x: unknown) => Buffer.byteLength(JSON.stringify(x));

describe('renderTeams', () => {
  it('wraps one full-width Adaptive Card in the message envelope a Workflows webhook posts', () => {
    const p = renderTeams(sampleMessage({ moreSections: 'and 41 more keys' }));
    expect(p).toMatchObject({
      type: 'message',
      attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null }],
    });
    const card = p.attachments[0].content;
    expect(card).toMatchObject({
      $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
      type: 'AdaptiveCard',
      version: TEAMS_LIMITS.cardVersion,
      msteams: { width: 'Full' },
      actions: [
        { type: 'Action.OpenUrl', title: 'Full report', url: 'https://reports.example.com/licenses/2026-11-20.html' },
      ],
    });
    expect(card.body).toEqual([
      {
        type: 'TextBlock',
        text: 'License alerts · Example Desktop',
        wrap: true,
        weight: 'Bolder',
        size: 'Medium',
        style: 'heading',
      },
      { type: 'TextBlock', text: '3 license keys need attention in Example Desktop', wrap: true },
      { type: 'TextBlock', text: '• 2 keys expire within 7 days', wrap: true },
      { type: 'TextBlock', text: '• 1 key is over its seat limit', wrap: true },
      {
        type: 'FactSet',
        facts: [
          { title: 'Keys', value: '3' },
          { title: 'Clients', value: '1,204' },
        ],
      },
      { type: 'Image', url: 'https://reports.example.com/charts/keys.png', altText: 'Clients per key, last 30 days' },
      {
        type: 'Container',
        separator: true,
        items: [
          { type: 'TextBlock', text: 'KEY-0001', wrap: true, weight: 'Bolder' },
          { type: 'TextBlock', text: 'expires in 7 days · 12 clients', wrap: true, isSubtle: true },
          { type: 'FactSet', facts: [{ title: 'Seats', value: '12 of 20' }] },
        ],
      },
      {
        type: 'Container',
        separator: true,
        items: [
          { type: 'TextBlock', text: 'KEY-0002', wrap: true, weight: 'Bolder' },
          { type: 'FactSet', facts: [{ title: 'Seats', value: '25 of 20' }] },
        ],
      },
      { type: 'TextBlock', text: 'and 41 more keys', wrap: true, isSubtle: true },
    ]);
    expectTeamsValid(p);
  });

  it('uses only elements and properties the Adaptive Cards library knows: they survive its parse and toJSON', () => {
    const { msteams: _hostOnly, ...card } = renderTeams(sampleMessage({ moreSections: 'and 41 more keys' }))
      .attachments[0].content;
    expect(parseCard(card as never).json).toEqual(card);
  });

  it('shows markdown, mentions, HTML entities and date functions in service text literally', () => {
    const hostile = '**x** [a](https://evil.example) <at>Everyone</at> &lt; _i_ `c` ~s~ {{DATE(2026-11-20T08:00:00Z)}}';
    expect(escapeCardMarkdown(hostile)).toBe(
      '\\*\\*x\\*\\* \\[a\\](https://evil.example) \\<at\\>Everyone\\</at\\> \\&lt; \\_i\\_ \\`c\\` \\~s\\~ \\{\\{DATE(2026-11-20T08:00:00Z)\\}\\}',
    );
    expect(escapeCardMarkdown('# h\n- a\n + b\n1. one\n2) two\n===\n1.5 e-mail')).toBe(
      '\\# h\n\\- a\n \\+ b\n1\\. one\n2\\) two\n\\===\n1.5 e-mail',
    );
    const body = bodyOf(
      sampleMessage({
        title: hostile,
        summary: hostile,
        lines: [hostile],
        facts: [{ label: hostile, value: hostile }],
      }),
    );
    for (const text of cardMarkdown(body)) expectInertCardMarkdown(text);
  });

  it('drops sections from the end to fit, saying how many, and cuts no text while sections can go', () => {
    const sections = Array.from({ length: 400 }, (_, i) => ({
      title: `KEY-${String(i).padStart(4, '0')}`,
      text: 'expires in 7 days · 12 clients in the last 30 days',
      facts: [{ label: 'Seats', value: '12 of 20' }],
    }));
    const p = renderTeams(sampleMessage({ sections }));
    expectTeamsValid(p);
    const body = p.attachments[0].content.body as { type: string; items?: { text?: string }[]; text?: string }[];
    const kept = body.filter((e) => e.type === 'Container');
    expect(kept.length).toBeGreaterThan(10);
    expect(kept.map((c) => c.items![0]!.text)).toEqual(sections.slice(0, kept.length).map((s) => s.title));
    expect(body.at(-1)).toMatchObject({ type: 'TextBlock', text: `${400 - kept.length} more sections not shown` });
    expect(JSON.stringify(body)).not.toContain('…');
    expect(bytes(p) + 400).toBeGreaterThan(TEAMS_LIMITS.payloadBytes);
  });

  it('cuts one huge line rather than dropping the sections after it', () => {
    const p = renderTeams(sampleMessage({ lines: ['x'.repeat(40_000)] }));
    expectTeamsValid(p);
    const body = p.attachments[0].content.body as { type: string; text?: string }[];
    expect(body.filter((e) => e.type === 'Container')).toHaveLength(2);
    expect(body[2]!.text).toMatch(/^• x+…$/);
  });

  it('fits 10 KB strings in every field within the payload limit and parses cleanly', () => {
    const m = hugeMessage();
    const p = renderTeams(m);
    expectTeamsValid(p);
    const body = bodyOf(m);
    expect(body[0]).toMatchObject({ type: 'TextBlock', weight: 'Bolder', text: expect.stringMatching(/^t+…$/) });
    expect(body.some((e) => e.type === 'Container')).toBe(true);
    for (const text of cardMarkdown(body)) expectInertCardMarkdown(text);
  });

  it('fits and parses cleanly, with inert markdown, for any message', () => {
    fc.assert(
      fc.property(anyMessage, (m) => {
        const p = renderTeams(m);
        expectTeamsValid(p);
        for (const text of cardMarkdown(p.attachments[0].content.body)) {
          expectInertCardMarkdown(text);
          expect(text.isWellFormed()).toBe(true);
        }
      }),
      // Reported as found: shrinking messages of 10 KB strings takes minutes.
      { numRuns: 100, endOnFailure: true },
    );
  });
});
