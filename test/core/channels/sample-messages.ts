/**
 * Channel messages for the renderer tests and bench/channels.ts (kept apart from channel-checks.ts, which needs
 * vitest): a small license alert batch, a digest the size the digest job builds for 10 products, and the worst a
 * renderer can be handed, 10 KB of text in every field.
 */
import type { ChannelMessage, ChannelSection } from '../../../src/core/channels/channel-message.ts';

export const sampleMessage = (over: Partial<ChannelMessage> = {}): ChannelMessage => ({
  event: 'license.alerts',
  title: 'License alerts · Example Desktop',
  summary: '3 license keys need attention in Example Desktop',
  lines: ['2 keys expire within 7 days', '1 key is over its seat limit'],
  facts: [
    { label: 'Keys', value: '3' },
    { label: 'Clients', value: '1,204' },
  ],
  sections: [
    { title: 'KEY-0001', text: 'expires in 7 days · 12 clients', facts: [{ label: 'Seats', value: '12 of 20' }] },
    { title: 'KEY-0002', facts: [{ label: 'Seats', value: '25 of 20' }] },
  ],
  image: { url: 'https://reports.example.com/charts/keys.png', alt: 'Clients per key, last 30 days' },
  link: { label: 'Full report', url: 'https://reports.example.com/licenses/2026-11-20.html' },
  occurredAt: '2026-11-20T08:00:00.000Z',
  data: { product: 'example-desktop', keys: [{ key: 'KEY-0001', daysLeft: 7 }] },
  ...over,
});

const figures = (n: number) => [
  { label: 'Active clients', value: `${(12_480 + n * 311).toLocaleString('en')} (+3.2%)` },
  { label: 'New clients', value: `${410 + n} (−1.1%)` },
  { label: 'Lost clients', value: `${120 + n} (+0.4%)` },
  { label: 'Exceptions', value: `${57 * n} (n/a)` },
];

/** A weekly digest of `products` products, as src/digest/channel-message.ts builds one. */
export function digestMessage(products: number): ChannelMessage {
  const sections: ChannelSection[] = Array.from({ length: products }, (_, i) => ({
    title: `Example Product ${i + 1}`,
    facts: figures(i),
  }));
  return {
    event: 'digest.sent',
    title: 'Weekly product digest · 2026-W47',
    summary: 'Active clients rose 3.2% across all products, led by Example Product 3 (+8.1%).',
    lines: [
      'New clients fell 1.1%, the second week in a row.',
      'Example Product 7 lost 4% of its active clients.',
      'Exceptions doubled in Example Product 2 after version 5.4.',
      'Example Product 9 had its best week since March.',
    ],
    facts: figures(0),
    sections,
    image: {
      url: 'https://reports.example.com/digests/2026-W47/headline.png',
      alt: 'Active clients per week, last year',
    },
    link: { label: 'Full report', url: 'https://reports.example.com/digests/2026-W47/index.html' },
    occurredAt: '2026-11-23T07:00:00.000Z',
    data: {
      digestId: 'weekly',
      isoWeek: '2026-W47',
      products: sections.map((s, i) => ({
        name: s.title,
        activeClients: { value: 12_480 + i * 311, changePercent: 3.2 },
      })),
    },
  };
}

/** 10 KB in every string of a message with many lines, facts and sections. */
export function hugeMessage(): ChannelMessage {
  const big = (c: string) => c.repeat(10 * 1024);
  const fact = { label: big('l'), value: big('v') };
  return sampleMessage({
    title: big('t'),
    summary: big('s'),
    lines: Array.from({ length: 20 }, () => big('<')),
    facts: Array.from({ length: 20 }, () => fact),
    sections: Array.from({ length: 30 }, () => ({ title: big('*'), text: big('ש'), facts: [fact, fact] })),
    moreSections: big('m'),
    image: { url: 'https://reports.example.com/c.png', alt: big('a') },
    link: { label: big('b'), url: 'https://reports.example.com/r.html' },
  });
}
