/**
 * Makes docs/images/channel-slack.png, channel-teams.png and channel-webhook.png, the channel pages' pictures: the
 * local channel sinks' previews of real messages, as `pulse digest --local` sends them (the emulator's data set
 * seed 1, today 2026-11-20, ISO week 2026-W46, the bundled example config), opened in Debian's headless Chromium at
 * 800 px, first screen, 256 colours. Same data, same week: the same pictures.
 *
 *   node scripts/channel-screenshots.ts
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import UPNG from 'upng-js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const WIDTH = 800;
const HEIGHT = 900;
const EMULATOR = { seed: 1, today: '2026-11-20' };
/** The example config's channels, one of each kind. */
const CHANNELS = { slack: 'product-slack', teams: 'product-teams', webhook: 'pulse-events' } as const;

function sendDigest(dir: string): void {
  const run = spawnSync(
    process.execPath,
    [join(ROOT, 'bin/pulse.ts'), 'digest', '--local', '--week', '2026-W46', '--work-dir', dir],
    { cwd: ROOT, encoding: 'utf8', env: { ...process.env, PULSE_LOCAL_EMULATOR: JSON.stringify(EMULATOR) } },
  );
  if (run.status !== 0) throw new Error(`pulse digest --local failed (exit ${run.status}): ${run.stderr}`);
}

async function shoot(previews: Record<string, string>): Promise<Record<string, Buffer>> {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox'] });
  try {
    const shots: Record<string, Buffer> = {};
    for (const [kind, file] of Object.entries(previews)) {
      const page = await browser.newPage({ viewport: { width: WIDTH, height: HEIGHT }, deviceScaleFactor: 1 });
      await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
      const png = await page.screenshot({ fullPage: false });
      const decoded = UPNG.decode(png.buffer.slice(png.byteOffset, png.byteOffset + png.byteLength) as ArrayBuffer);
      shots[kind] = Buffer.from(UPNG.encode(UPNG.toRGBA8(decoded), decoded.width, decoded.height, 256));
      await page.close();
    }
    return shots;
  } finally {
    await browser.close();
  }
}

const dir = await mkdtemp(join(tmpdir(), 'pulse-channel-screenshots-'));
try {
  sendDigest(dir);
  const previews: Record<string, string> = {};
  for (const [kind, channel] of Object.entries(CHANNELS)) {
    const folder = join(dir, 'outbox/channels', channel);
    const first = (await readdir(folder)).filter((f) => f.endsWith('.html')).sort()[0];
    if (!first) throw new Error(`no preview in ${folder}`);
    previews[kind] = join(folder, first);
  }
  for (const [kind, png] of Object.entries(await shoot(previews))) {
    const out = join(ROOT, 'docs/images', `channel-${kind}.png`);
    await writeFile(out, png);
    process.stdout.write(`wrote ${out} (${Math.round(png.length / 1024)} KB)\n`);
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
