/**
 * The whole bounce path of a local run through `main`: `pulse digest --local` with `$PULSE_LOCAL_BOUNCE` (the SMTP
 * sink bounces one recipient, as SES would report it) settles the mail events after the job (a second result line),
 * the next week's digest leaves the address out (exit 1, the clear command named), `pulse mail clear-suppression`
 * clears it (logged) and the digest then sends. The example config with its schedule in UTC, as in
 * digest-command.test.ts.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_CONFIG } from '../../src/app/local-runtime.ts';
import { lastCompleteIsoWeek } from '../../src/core/calendar.ts';
import { pulseMain } from '../helpers/cli-main.ts';

const CPO = 'cpo@example.com';
let tmp: string;
let config: string;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'pulse-cli-mail-'));
  const example = JSON.parse(await readFile(EXAMPLE_CONFIG, 'utf8'));
  delete example.$schema;
  for (const d of example.digests) d.schedule.timeZone = 'UTC';
  config = join(tmp, 'utc.config.json');
  await writeFile(config, JSON.stringify(example));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const jsonLines = (stdout: string) =>
  stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));
const lastWeek = lastCompleteIsoWeek(new Date(), 'UTC').isoWeek;
const weekBefore = lastCompleteIsoWeek(new Date(Date.now() - 7 * 86_400_000), 'UTC').isoWeek;

describe('a local bounce, end to end', () => {
  it('suppresses the address, keeps the next digest from it, and sends again once cleared', async () => {
    const workDir = join(tmp, 'run');
    const local = ['--local', '--work-dir', workDir, '--config', config];
    const bounce = { PULSE_LOCAL_BOUNCE: ` ${CPO} ` };

    const first = await pulseMain(['digest', ...local, '--week', weekBefore, '--json'], bounce);
    expect(first.code).toBe(0);
    const [digest, events, ...more] = jsonLines(first.stdout);
    expect(more).toEqual([]);
    expect(digest).toMatchObject({ job: 'digest', ok: true, counts: { sent: 5 } });
    expect(events).toMatchObject({
      job: 'mail-events',
      ok: true,
      counts: { bounced: 1, addressesSuppressed: 1, recorded: 1, notices: 1 },
    });

    const next = await pulseMain(['digest', ...local, '--week', lastWeek], bounce);
    expect(next.code).toBe(1);
    expect(next.stdout).toMatch(/^digest: NOT ok \(sent 4, .*suppressed 1\)$/m);
    expect(next.stderr).toContain(`error: exec-weekly ${lastWeek} to ${CPO}: suppressed: ${CPO} is suppressed since `);
    expect(next.stderr).toContain(`run \`pulse mail clear-suppression ${CPO}\``);

    const cleared = await pulseMain(['mail', 'clear-suppression', 'CPO@example.com', ...local]);
    expect(cleared.code).toBe(0);
    expect(cleared.stdout).toMatch(
      /^mail-clear-suppression: ok \(cleared 1\)\n {2}cleared cpo@example\.com: suppressed since \S+ after a hard bounce of digest#exec-weekly#/,
    );
    // Logged: who was cleared and what had suppressed it.
    const [log] = cleared.stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(log).toMatchObject({ level: 'WARN', address: CPO, reason: 'bounce' });

    const again = await pulseMain(['mail', 'clear-suppression', CPO, ...local, '--json']);
    expect(again.code).toBe(1);
    expect(jsonLines(again.stdout)).toEqual([
      {
        job: 'mail-clear-suppression',
        ok: false,
        counts: { cleared: 0 },
        outputs: [],
        errors: [`${CPO} was not suppressed (nothing changed)`],
      },
    ]);

    const sent = await pulseMain(['digest', ...local, '--week', lastWeek, '--json']);
    expect(sent.code).toBe(0);
    expect(jsonLines(sent.stdout)).toMatchObject([{ job: 'digest', ok: true, counts: { sent: 1, suppressed: 0 } }]);
  });
});

describe('pulse mail: usage', () => {
  it('prints its help, and exits 2 naming what is wrong', async () => {
    const help = await pulseMain(['mail', '--help']);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(/^Usage: pulse mail clear-suppression ADDRESS/);
    const usage = async (argv: string[], env: Record<string, string>, message: RegExp) => {
      const r = await pulseMain(argv, env);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
    };
    await usage(['mail', 'unsuppress', CPO], {}, /mail: unknown subcommand "unsuppress"/);
    await usage(['mail', 'clear-suppression'], {}, /give exactly one ADDRESS/);
    await usage(['mail', 'clear-suppression', 'not-an-address', '--local'], {}, /"not-an-address" is not an email/);
    await usage(
      ['digest', '--local', '--work-dir', join(tmp, 'bad-env')],
      { PULSE_LOCAL_BOUNCE: 'ceo@example.com,nobody' },
      /\$PULSE_LOCAL_BOUNCE: "nobody" is not an email address/,
    );
  });
});
