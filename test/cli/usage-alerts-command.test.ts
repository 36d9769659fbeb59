/**
 * `pulse usage-alerts` through `main` against in-process local peers: `--dry-run` judges the rules' last complete
 * periods and prints what a run would tell with the calls it made; `backtest` replays a rule (`--json`: every change
 * with its verdict and evidence); a run tells each change once, by email, and a second run tells nothing; the run's
 * evidence, read back from the local S3 by the URI the run names, recomputes to what was told; bad flags are usage
 * errors naming the flag.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { jsonResult, pulseMain } from '../helpers/cli-main.ts';
import { writeExampleConfig } from '../helpers/pulse-process.ts';

let tmp: string;
let config: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'pulse-cli-usage-alerts-'));
  config = await writeExampleConfig(tmp, 'usage.config.json', (c) => {
    const products = c.products.map((p: { id: string }) => p.id);
    const base = { owner: 'owner@example.com', recipients: [{ address: 'ops@example.com' }], productIds: products };
    c.usageAlerts = {
      rules: [
        {
          ...base,
          id: 'active-drop',
          metric: { kind: 'clients', status: 'active' },
          period: { unit: 'day' },
          condition: { kind: 'change', percent: 10, direction: 'down' },
        },
        {
          ...base,
          id: 'new-weekly',
          metric: { kind: 'clients', status: 'new' },
          period: { unit: 'week' },
          condition: { kind: 'deviation' },
        },
      ],
    };
  });
});
afterAll(() => rm(tmp, { recursive: true, force: true }));

const run = (...argv: string[]) =>
  pulseMain(['usage-alerts', ...argv, '--local', '--config', config, '--work-dir', join(tmp, 'work')]);

describe('pulse usage-alerts --local', () => {
  it('--dry-run judges every rule with one call per product and family, and says what it would tell', async () => {
    const { code, stdout, stderr } = await run('--dry-run');
    expect(code, stderr).toBe(EXIT.ok);
    expect(stdout).toMatch(
      /^usage-alerts: ok \(2 rules, 4 series, 4 report calls: \d+ firing, \d+ resolved would be told\)\n/,
    );
  });

  it('backtest --json lists each change with its verdict and the figures before it', async () => {
    const { code, stdout, stderr } = await run('backtest', '--rule', 'active-drop', '--from', '2026-09-01', '--json');
    expect(code, stderr).toBe(EXIT.ok);
    const out = jsonResult(stdout);
    expect(out).toMatchObject({ job: 'usage-alerts', ok: true, counts: { rules: 1, calls: 2 } });
    expect(out.periods['active-drop'].from).toBe('2026-09-01');
    for (const change of out.changes) {
      expect(change.ruleId).toBe('active-drop');
      expect(['firing', 'resolved']).toContain(change.state);
      expect(change.evidence.at(-1).period).toBe(change.period);
      expect(change.verdict.reason).toMatch(/the period before/);
    }
  });

  it('a run tells what --dry-run said it would, by email, once; the next run tells nothing', async () => {
    const dry = jsonResult((await run('--dry-run', '--json')).stdout);
    const first = await run('--json');
    expect(first.code, first.stderr).toBe(EXIT.ok);
    const told = jsonResult(first.stdout);
    expect(told.changes).toEqual(dry.changes);
    expect(told.counts.emails).toBe(dry.changes.length > 0 ? 1 : 0);
    const eml = (await readdir(join(tmp, 'work', 'outbox'))).filter((f) => f.endsWith('.eml'));
    expect(eml).toHaveLength(told.counts.emails);
    const again = jsonResult((await run('--json')).stdout);
    expect(again.changes).toEqual([]);
    expect(again.counts).toMatchObject({ emails: 0, posts: 0 });
    expect(again.outputs).toEqual([]);
    // Nothing settled since: the rules are up to date, and nothing is asked.
    expect(again.counts).toMatchObject({ rules: 2, upToDate: 2, series: 0, calls: 0 });
    expect((await run()).stdout).toMatch(/^usage-alerts: ok \(2 rules, 2 up to date, 0 series, 0 report calls: /);
    expect(jsonResult((await run('--dry-run', '--json')).stdout).changes).toEqual([]);
    // The run that told kept its evidence; recomputed from the local S3 by its s3:// URI, it finds what was told.
    if (told.changes.length === 0) return;
    expect(told.outputs).toEqual([expect.stringMatching(/^s3:\/\/pulse-archive\/pulse\/usage-alerts\/evidence\//)]);
    const recompute = await run('recompute', '--evidence', told.outputs[0], '--json');
    expect(recompute.code, recompute.stderr).toBe(EXIT.ok);
    const checked = jsonResult(recompute.stdout);
    expect(checked).toMatchObject({ same: true, differences: [] });
    expect(checked.recomputed).toEqual(told.changes);
  });

  it('a dry run writes no evidence; recompute of a key that is not there says so', async () => {
    const dry = jsonResult((await run('--dry-run', '--json')).stdout);
    expect(dry.outputs).toEqual([]);
    const missing = await run('recompute', '--evidence', 'pulse/usage-alerts/evidence/2026-01-01/none.json');
    expect(missing.code).toBe(EXIT.failure);
    expect(missing.stderr).toContain('no evidence at pulse/usage-alerts/evidence/2026-01-01/none.json');
  });

  it('refuses what it cannot do, naming the flag', async () => {
    const cases: [string[], RegExp][] = [
      [['backtest'], /backtest: --from YYYY-MM-DD is required/],
      [['backtest', '--from', '2026-13-01'], /--from "2026-13-01": a date YYYY-MM-DD/],
      [['backtest', '--from', '2026-10-02', '--to', '2026-10-01'], /--from 2026-10-02 is after --to 2026-10-01/],
      [['--dry-run', '--from', '2026-10-01'], /--from and --to go with `pulse usage-alerts backtest`/],
      [['--dry-run', '--resend-unknown'], /--resend-unknown does not go with --dry-run/],
      [['backtest', '--from', '2026-09-01', '--confirm-unknown'], /--confirm-unknown does not go with backtest/],
      [['--resend-unknown', '--confirm-unknown'], /--resend-unknown and --confirm-unknown exclude each other/],
      [
        ['--dry-run', '--rule', 'nope'],
        /--rule nope: not in the config's usageAlerts rules \(active-drop, new-weekly\)/,
      ],
    ];
    for (const [argv, message] of cases) {
      const { code, stderr } = await run(...argv);
      expect(code, argv.join(' ')).toBe(EXIT.usage);
      expect(stderr).toMatch(message);
    }
  });
});
