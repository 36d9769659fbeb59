/**
 * A real `pulse digest --local` process SIGKILLed between two steps of a delivery (test/fixtures/preload/kill-at.ts),
 * then run again on the same work dir: whatever the kill point, no recipient gets a second digest unless a person
 * asks for it, the delivery whose outcome is unknown is reported (exit 1) and told to the owner once.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPulse, writeExampleConfig } from '../helpers/pulse-process.ts';

const KILL_AT = new URL('../fixtures/preload/kill-at.ts', import.meta.url).pathname;
const [CEO, CPO, OWNER] = ['ceo@example.com', 'cpo@example.com', 'analytics-owner@example.com'];

let tmp: string;
let config: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'pulse-digest-kill-'));
  // UTC, so the week that just ended is the service's too whatever the hour (see digest-command.test.ts).
  config = await writeExampleConfig(tmp, 'config.json', (c) => {
    for (const d of c.digests) d.schedule.timeZone = 'UTC';
  });
});
afterAll(() => rm(tmp, { recursive: true, force: true }));

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  json: { ok: boolean; counts: Record<string, number>; errors: string[] } | undefined;
}

/** `pulse digest --local` on `workDir`; with `killAt`, SIGKILLed at that point (test/fixtures/preload/kill-at.ts). */
async function digest(workDir: string, args: string[] = [], killAt?: string): Promise<Run> {
  const argv = ['digest', '--local', '--config', config, '--work-dir', workDir, '--json', ...args];
  const exit = killAt ? await runPulse(argv, { PULSE_KILL_AT: killAt }, ['--import', KILL_AT]) : await runPulse(argv);
  const line = exit.stdout.split('\n').find((l) => l.startsWith('{'));
  return { code: exit.code, signal: exit.signal, json: line ? JSON.parse(line) : undefined };
}

/** Who got what in the outbox: `digest:<to>` or `notice:<to>` per message. */
async function outbox(workDir: string): Promise<string[]> {
  const dir = join(workDir, 'outbox');
  if (!existsSync(dir)) return [];
  const files = (await readdir(dir)).filter((f) => f.endsWith('.eml'));
  const out = await Promise.all(
    files.map(async (f) => {
      const raw = await readFile(join(dir, f), 'utf8');
      const to = /^To: (.*)$/im.exec(raw)?.[1]?.trim() ?? '?';
      return `${/^X-Pulse-Notice: delivery-unknown/im.test(raw) ? 'notice' : 'digest'}:${to}`;
    }),
  );
  return out.sort();
}

describe('pulse digest killed mid-delivery', () => {
  it('between send and ledger record: the sent recipient is unknown, never resent by itself; the owner is told once', async () => {
    const workDir = join(tmp, 'before-complete');
    const killed = await digest(workDir, [], 'before-complete');
    expect(killed.signal).toBe('SIGKILL');
    // The first recipient's digest left before the kill.
    expect(await outbox(workDir)).toEqual([`digest:${CEO}`]);

    const rerun = await digest(workDir);
    expect(rerun.code).toBe(1);
    // The other recipient and the example's three channels are sent; the killed delivery is unknown.
    expect(rerun.json).toMatchObject({ ok: false, counts: { sent: 4, unknown: 1, skippedAlreadySent: 0 } });
    expect(rerun.json!.errors.join('\n')).toContain(`to ${CEO}: unknown`);
    expect(rerun.json!.errors.join('\n')).toContain('--resend-unknown');
    expect(await outbox(workDir)).toEqual([`digest:${CEO}`, `digest:${CPO}`, `notice:${OWNER}`]);

    const again = await digest(workDir);
    expect(again.code).toBe(1);
    expect(again.json).toMatchObject({ counts: { sent: 0, unknown: 1, skippedAlreadySent: 4 } });
    expect(await outbox(workDir)).toEqual([`digest:${CEO}`, `digest:${CPO}`, `notice:${OWNER}`]);

    // The mail log shows it arrived: recorded as delivered, nothing sent, and the runs are clean from then on.
    const confirmed = await digest(workDir, ['--confirm-unknown']);
    expect(confirmed.code).toBe(0);
    expect(confirmed.json).toMatchObject({ ok: true, counts: { confirmed: 1, sent: 0 } });
    expect((await digest(workDir)).json).toMatchObject({ ok: true, counts: { skippedAlreadySent: 5, unknown: 0 } });
    expect(await outbox(workDir)).toEqual([`digest:${CEO}`, `digest:${CPO}`, `notice:${OWNER}`]);
  }, 120_000);

  it('between claim and send: nothing left, the claim is unknown, and a deliberate resend sends it once', async () => {
    const workDir = join(tmp, 'after-claim');
    const killed = await digest(workDir, [], 'after-claim');
    expect(killed.signal).toBe('SIGKILL');
    expect(await outbox(workDir)).toEqual([]);

    const rerun = await digest(workDir);
    expect(rerun.json).toMatchObject({ ok: false, counts: { sent: 4, unknown: 1 } });
    const resent = await digest(workDir, ['--resend-unknown']);
    expect(resent.code).toBe(0);
    expect(resent.json).toMatchObject({ ok: true, counts: { sent: 1, skippedAlreadySent: 4, unknown: 0 } });
    expect(await outbox(workDir)).toEqual([`digest:${CEO}`, `digest:${CPO}`, `notice:${OWNER}`]);
    expect((await digest(workDir)).json).toMatchObject({ ok: true, counts: { sent: 0, skippedAlreadySent: 5 } });
  }, 120_000);
});
