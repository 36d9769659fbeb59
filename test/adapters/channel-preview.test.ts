/**
 * The outbox previews of the local channel sinks in headless Chromium, opened from disk as a person opens them:
 * at 375 and 800 px each fits the screen and says which channel and kind it shows; the Teams card is drawn by the
 * official Adaptive Cards renderer under the page's CSP; Slack shows its header and two columns of fields; hostile
 * text (`<img onerror>`, an escaped `&lt;!channel&gt;`) stays text in every kind, while an unescaped `<!channel>`
 * shows as the mention Slack would make of it; nothing is requested beyond file://. Screenshots go to
 * test-artifacts/channels/.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChannelSink, localSigningSecret, startChannelSink } from '../../src/adapters/local/channel-sink.ts';
import { ARTIFACTS, launchChromium } from '../helpers/email-browser.ts';

/** The few browser globals the page functions below use; the project compiles without the DOM lib. */
interface PageElement {
  textContent: string | null;
  getAttribute(name: string): string | null;
  getAttributeNames(): string[];
  getBoundingClientRect(): { left: number; top: number; right: number };
  querySelectorAll(selector: string): Iterable<PageElement> & { length: number };
}
interface PageGlobals {
  innerWidth: number;
  document: {
    title: string;
    documentElement: { scrollWidth: number };
    querySelector(selector: string): PageElement | null;
    querySelectorAll(selector: string): Iterable<PageElement> & { length: number };
  };
}

const HOSTILE_HTML = '<img src=x onerror=alert(1)>';
const SHOTS = join(ARTIFACTS, 'channels');

const digestSlack = {
  text: 'Weekly product digest · 2026-W47: 1,204 active clients',
  blocks: [
    { type: 'header', text: { type: 'plain_text', text: 'Weekly product digest · 2026-W47' } },
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: '*Example Desktop* had _more_ clients than last week. <https://reports.example.com/w47|Full report>',
      },
    },
    {
      type: 'section',
      fields: [
        { type: 'mrkdwn', text: '*Active clients*\n1,204' },
        { type: 'mrkdwn', text: '*Sessions*\n9,871' },
        { type: 'mrkdwn', text: '*Crashes*\n12' },
        { type: 'mrkdwn', text: '*New installs*\n87' },
      ],
    },
    { type: 'image', image_url: 'https://charts.example.com/w47.png', alt_text: 'Active clients per day, 2026-W47' },
    {
      type: 'actions',
      elements: [
        {
          type: 'button',
          text: { type: 'plain_text', text: 'Open the report' },
          url: 'https://reports.example.com/w47',
        },
      ],
    },
    { type: 'divider' },
    { type: 'context', elements: [{ type: 'mrkdwn', text: 'Pulse · sent Monday 08:00 UTC' }] },
  ],
};

/** What a correct renderer makes of hostile names: Slack's three entities escaped in mrkdwn. */
const hostileSlack = {
  text: `Digest for &lt;!channel&gt; ${HOSTILE_HTML.replace('<', '&lt;').replace('>', '&gt;')}`,
  blocks: [
    { type: 'header', text: { type: 'plain_text', text: `Product ${HOSTILE_HTML}` } },
    {
      type: 'section',
      text: { type: 'mrkdwn', text: `Product &lt;img src=x onerror=alert(1)&gt; and &lt;!channel&gt; &amp; co` },
      fields: [
        { type: 'mrkdwn', text: '*Name*\n&lt;!channel&gt;' },
        { type: 'mrkdwn', text: '*Owner*\n&lt;@U024BE7LH&gt; &lt;#C024BE7LR|general&gt;' },
      ],
    },
  ],
};

/** What a renderer that forgot to escape would send: Slack would notify the channel and make a link. */
const unescapedSlack = { text: 'Product <!channel> <https://evil.example|click here>' };

const teamsCard = {
  type: 'message',
  attachments: [
    {
      contentType: 'application/vnd.microsoft.card.adaptive',
      contentUrl: null,
      content: {
        type: 'AdaptiveCard',
        $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
        version: '1.5',
        body: [
          { type: 'TextBlock', text: 'License alerts · Example Desktop', weight: 'Bolder', size: 'Large', wrap: true },
          { type: 'TextBlock', text: `3 keys need **attention**: ${HOSTILE_HTML}`, wrap: true },
          {
            type: 'FactSet',
            facts: [
              { title: 'License key', value: 'EXD-2026-0042' },
              { title: 'Expires', value: '2026-12-01 (in 7 days)' },
            ],
          },
          { type: 'Image', url: 'https://charts.example.com/licenses.png', altText: 'Usage per key' },
        ],
        actions: [{ type: 'Action.OpenUrl', title: 'Open the license report', url: 'https://reports.example.com/lic' }],
      },
    },
  ],
};

let outboxDir: string;
let sink: ChannelSink;
let browser: Browser;
/** The preview file of each case, by name. */
const previews = new Map<string, string>();

async function postJson(path: string, body: string, headers: Record<string, string> = {}): Promise<number> {
  const res = await fetch(`${sink.url}${path}`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', ...headers },
  });
  await res.arrayBuffer();
  return res.status;
}

async function deliver(name: string, path: string, payload: object, headers: Record<string, string> = {}) {
  expect(await postJson(path, JSON.stringify(payload), headers)).toBeLessThan(300);
  previews.set(name, sink.received.at(-1)!.files.find((f) => f.endsWith('.html'))!);
}

beforeAll(async () => {
  outboxDir = await mkdtemp(join(tmpdir(), 'pulse-outbox-'));
  await mkdir(SHOTS, { recursive: true });
  sink = await startChannelSink({ outboxDir });
  await deliver('slack', '/slack/ops-slack', digestSlack);
  await deliver('slack-hostile', '/slack/ops-slack', hostileSlack);
  await deliver('slack-unescaped', '/slack/ops-slack', unescapedSlack);
  await deliver('teams', '/teams/ops-teams', teamsCard);
  const event = JSON.stringify({
    type: 'license.alerts',
    timestamp: '2026-11-23T08:00:00Z',
    data: { product: `Example ${HOSTILE_HTML} &lt;!channel&gt;`, keys: 3 },
  });
  const now = new Date();
  const signature = new Webhook(localSigningSecret('erp-hook')).sign('msg_7Hq2', now, event);
  expect(
    await postJson('/webhook/erp-hook', event, {
      'webhook-id': 'msg_7Hq2',
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': signature,
    }),
  ).toBe(204);
  previews.set('webhook', sink.received.at(-1)!.files.find((f) => f.endsWith('.html'))!);
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await sink?.close();
  await rm(outboxDir, { recursive: true, force: true });
});

interface Opened {
  page: Page;
  dialogs: string[];
  /** Every request that tried to leave file:// (aborted). */
  outside: string[];
  /** Console errors: a CSP violation, a renderer failure. */
  errors: string[];
}

async function open(name: string, width: number): Promise<Opened> {
  const context = await browser.newContext({ viewport: { width, height: 800 } });
  const page = await context.newPage();
  const dialogs: string[] = [];
  const outside: string[] = [];
  const errors: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('file://')) return route.continue();
    outside.push(url);
    return route.abort();
  });
  page.on('request', (r) => {
    if (!/^(file|data):/.test(r.url()) && !outside.includes(r.url())) outside.push(r.url());
  });
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(pathToFileURL(previews.get(name)!).href, { waitUntil: 'load' });
  return { page, dialogs, outside, errors };
}

/** The page's title and heading, whether it scrolls sideways, and every element or attribute a script could use. */
function inspect(page: Page) {
  return page.evaluate(() => {
    const g = globalThis as unknown as PageGlobals;
    const all = [...g.document.querySelectorAll('body *')];
    return {
      title: g.document.title,
      heading: g.document.querySelector('h1')?.textContent ?? '',
      scrollWidth: g.document.documentElement.scrollWidth,
      innerWidth: g.innerWidth,
      handlers: all.flatMap((el) => el.getAttributeNames().filter((a) => a.startsWith('on'))),
      images: all.filter((el) => el.getAttribute('src') !== null).map((el) => el.getAttribute('src') ?? ''),
    };
  });
}

async function shot(opened: Opened, name: string) {
  await opened.page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  await opened.page.context().close();
}

describe.each([375, 800])('previews at %i px', (width) => {
  it('Slack: header, sections, two columns of fields, image placeholder, button; fits; no request', async () => {
    const opened = await open('slack', width);
    const { page } = opened;
    const result = await inspect(page);
    const header = page.locator('.s-header');
    const fields = await page.locator('.s-field').evaluateAll((els) =>
      (els as unknown as PageElement[]).map((el) => ({
        top: el.getBoundingClientRect().top,
        left: el.getBoundingClientRect().left,
      })),
    );
    const strong = await page.locator('.s-text strong').first().textContent();
    const link = await page.locator('.s-text a.s-link').getAttribute('href');
    const image = await page.locator('.s-image').textContent();
    const button = await page.locator('a.s-button').textContent();
    const context = await page.locator('.s-context').evaluate((el) => {
      const g = globalThis as unknown as { getComputedStyle(e: unknown): { fontSize: string } };
      return Number.parseFloat(g.getComputedStyle(el).fontSize);
    });
    await expect(header.isVisible()).resolves.toBe(true);
    await expect(page.locator('.s-field').first().isVisible()).resolves.toBe(true);
    await shot(opened, `slack-${width}`);

    expect(result.title).toBe('Slack · ops-slack');
    expect(result.heading).toBe('Slack message to channel ops-slack');
    expect(result.scrollWidth).toBeLessThanOrEqual(result.innerWidth);
    expect(fields).toHaveLength(4);
    // Two columns: the first two fields side by side, the third under the first.
    expect(fields[0]!.top).toBe(fields[1]!.top);
    expect(fields[1]!.left).toBeGreaterThan(fields[0]!.left);
    expect(fields[2]!.left).toBe(fields[0]!.left);
    expect(strong).toBe('Example Desktop');
    expect(link).toBe('https://reports.example.com/w47');
    expect(image).toContain('Active clients per day, 2026-W47');
    expect(button).toBe('Open the report');
    expect(context).toBeLessThan(15);
    expect(result.images).toEqual([]);
    expect(opened.outside).toEqual([]);
    expect(opened.errors).toEqual([]);
  });

  it('Teams: the Adaptive Cards renderer draws the card (title, FactSet) under the CSP; fits; no request', async () => {
    const opened = await open('teams', width);
    const { page } = opened;
    const card = page.locator('.ac-adaptiveCard');
    await card.waitFor();
    const cardText = await card.textContent();
    const facts = await page.locator('.ac-adaptiveCard .ac-factset').textContent();
    const bold = await page.locator('.ac-adaptiveCard strong').textContent();
    const result = await inspect(page);
    const raw = await page.locator('details pre').textContent();
    await shot(opened, `teams-${width}`);

    expect(result.title).toBe('Microsoft Teams · ops-teams');
    expect(result.heading).toBe('Microsoft Teams message to channel ops-teams');
    expect(cardText).toContain('License alerts · Example Desktop');
    expect(facts).toContain('License key');
    expect(facts).toContain('EXD-2026-0042');
    expect(facts).toContain('2026-12-01 (in 7 days)');
    expect(bold).toBe('attention');
    // The hostile text is text; the card's remote image is a placeholder.
    expect(cardText).toContain(HOSTILE_HTML);
    expect(result.handlers).toEqual([]);
    expect(result.images.filter((src) => !src.startsWith('data:') && !src.endsWith('.js'))).toEqual([]);
    expect(result.images.some((src) => src.startsWith('data:image/svg+xml'))).toBe(true);
    expect(JSON.parse(raw ?? '')).toEqual(teamsCard);
    expect(result.scrollWidth).toBeLessThanOrEqual(result.innerWidth);
    expect(opened.dialogs).toEqual([]);
    expect(opened.outside).toEqual([]);
    expect(opened.errors).toEqual([]);
  });

  it('webhook: type, id, timestamp, verified, the JSON; hostile data stays text; fits; no request', async () => {
    const opened = await open('webhook', width);
    const { page } = opened;
    const facts = await page.locator('dl.facts').innerText();
    const json = await page.locator('details pre').textContent();
    const result = await inspect(page);
    await shot(opened, `webhook-${width}`);

    expect(result.title).toBe('Webhook · erp-hook');
    expect(facts).toContain('license.alerts');
    expect(facts).toContain('msg_7Hq2');
    expect(facts).toContain('2026-11-23T08:00:00Z');
    expect(facts).toMatch(/Signature verified with the Standard Webhooks library\s+yes/);
    expect(json).toContain(HOSTILE_HTML);
    expect(result.handlers).toEqual([]);
    expect(result.images).toEqual([]);
    expect(result.scrollWidth).toBeLessThanOrEqual(result.innerWidth);
    expect(opened.dialogs).toEqual([]);
    expect(opened.outside).toEqual([]);
    expect(opened.errors).toEqual([]);
  });

  it('Slack: escaped hostile names show as text, with no element, mention or link made of them', async () => {
    const opened = await open('slack-hostile', width);
    const { page } = opened;
    const panel = await page.locator('.panel').innerText();
    const made = await page.locator('.panel img, .panel .s-mention, .panel a, .panel .s-link').count();
    const result = await inspect(page);
    await shot(opened, `slack-hostile-${width}`);

    expect(panel).toContain(`Product ${HOSTILE_HTML}`);
    expect(panel).toContain('Product <img src=x onerror=alert(1)> and <!channel> & co');
    expect(panel).toContain('<!channel>');
    expect(panel).toContain('<@U024BE7LH> <#C024BE7LR|general>');
    expect(made).toBe(0);
    expect(result.handlers).toEqual([]);
    expect(result.images).toEqual([]);
    expect(result.scrollWidth).toBeLessThanOrEqual(result.innerWidth);
    expect(opened.dialogs).toEqual([]);
    expect(opened.outside).toEqual([]);
  });
});

it('Slack: what a renderer forgot to escape shows as the mention and link Slack would make of it', async () => {
  const opened = await open('slack-unescaped', 375);
  const mention = await opened.page.locator('.s-mention').textContent();
  const href = await opened.page.locator('a.s-link').getAttribute('href');
  const label = await opened.page.locator('a.s-link').textContent();
  await shot(opened, 'slack-unescaped-375');
  expect(mention).toBe('@channel');
  expect(href).toBe('https://evil.example');
  expect(label).toBe('click here');
});
