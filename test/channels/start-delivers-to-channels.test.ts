/**
 * `pulse start` (what `npm start` runs) with the bundled example delivers each kind of message to a Slack, a Teams
 * and a webhook channel of the local sinks, once: the digest, the license alerts (a first run's summary), the
 * license report, and an owner's notice (the SMTP sink bounces one digest recipient, `$PULSE_LOCAL_BOUNCE`, so the
 * owner's bounce notice goes to the notice channels); the webhook also gets the archive run's event
 * (`archive.channels`). A second start posts nothing but its own archive run's event. Every preview opens in
 * Chromium at 375 and 800 px: no sideways scrolling, the Teams card drawn by the Adaptive Cards renderer.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { pulseMain } from '../helpers/cli-main.ts';
import { launchChromium } from '../helpers/email-browser.ts';

const CHANNELS = ['product-slack', 'product-teams', 'pulse-events'] as const;
const env = { PULSE_USER: 'u', PULSE_PASSWORD: 'p', PULSE_LOCAL_BOUNCE: 'cpo@example.com' };

let tmp: string;
let browser: Browser;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'pulse-start-channels-'));
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await rm(tmp, { recursive: true, force: true });
});

/** Each channel's messages: the payload files in order, with what they are about. */
async function messages(workDir: string): Promise<Record<string, { file: string; text: string }[]>> {
  const out: Record<string, { file: string; text: string }[]> = {};
  for (const channel of CHANNELS) {
    const dir = join(workDir, 'outbox', 'channels', channel);
    const files = (await readdir(dir)).filter((f) => f.endsWith('.json')).sort();
    out[channel] = await Promise.all(
      files.map(async (file) => ({ file: join(dir, file), text: await readFile(join(dir, file), 'utf8') })),
    );
  }
  return out;
}

it('a digest, a license alerts summary, a license report and an owner notice reach each channel once', async () => {
  const workDir = join(tmp, 'work');
  const first = await pulseMain(['start', '--work-dir', workDir], env);
  expect(first.code, first.stderr).toBe(0);
  const sent = await messages(workDir);
  const kinds = (m: { text: string }) => {
    const { payload } = JSON.parse(m.text);
    if (payload.type && payload.type !== 'message') return payload.type as string; // a webhook event (Teams' envelope is a message)
    const text = JSON.stringify(payload);
    if (text.includes('bounce')) return 'mail.event';
    if (text.includes('License keys') || text.includes('License alerts')) return 'license.alerts';
    if (text.includes('license registry report')) return 'license.report';
    if (text.includes('executive digest')) return 'digest.sent';
    return 'other';
  };
  for (const channel of CHANNELS) {
    expect(sent[channel]!.map(kinds).sort(), channel).toEqual([
      ...(channel === 'pulse-events' ? ['archive.completed'] : []),
      'digest.sent',
      'license.alerts',
      'license.report',
      'mail.event',
    ]);
  }

  const second = await pulseMain(['start', '--work-dir', workDir], env);
  expect(second.code, second.stderr).toBe(0);
  const after = await messages(workDir);
  // Each archive run is an event of its own; nothing else is posted again.
  const { 'pulse-events': events, ...chat } = after;
  expect(chat).toEqual({ 'product-slack': sent['product-slack'], 'product-teams': sent['product-teams'] });
  expect(events!.slice(0, sent['pulse-events']!.length)).toEqual(sent['pulse-events']);
  expect(events!.slice(sent['pulse-events']!.length).map(kinds)).toEqual(['archive.completed']);

  for (const channel of CHANNELS) {
    for (const { file } of sent[channel]!) {
      const preview = file.replace(/\.json$/, '.html');
      for (const width of [375, 800]) {
        const page = await browser.newPage({ viewport: { width, height: 800 } });
        const errors: string[] = [];
        page.on('pageerror', (e) => errors.push(e.message));
        await page.goto(pathToFileURL(preview).href);
        expect(await page.title(), preview).toContain(channel);
        // Evaluated in the page: its globals, typed here without the DOM library.
        const { scrollWidth, innerWidth } = await page.evaluate(() => {
          const g = globalThis as unknown as {
            document: { documentElement: { scrollWidth: number } };
            innerWidth: number;
          };
          return { scrollWidth: g.document.documentElement.scrollWidth, innerWidth: g.innerWidth };
        });
        expect(scrollWidth, `${preview} at ${width}px`).toBeLessThanOrEqual(innerWidth);
        if (channel === 'product-teams') await expect(page.locator('.ac-adaptiveCard').count()).resolves.toBe(1);
        expect(errors).toEqual([]);
        await page.close();
      }
    }
  }
}, 240_000);
