/**
 * `pulse licenses alerts --dry-run` through `main`, against in-process local peers and the bundled example config:
 * the table of alerts per recipient and stage (recipients by alerts, stages in lifecycle order, a total row) holds
 * exactly the numbers the real run then sends — in its `--json` "recipients" and in the CSV of every email in the
 * outbox — and `--dry-run --json` gives the same numbers.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseCsv } from '../../emulator/files/csv.ts';
import { lifecycleRank, type Stage } from '../../src/licenses/alerts/stage.ts';
import { csvRecords } from '../helpers/local-licenses.ts';
import { pulseMain } from '../helpers/pulse-main.ts';

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'pulse-licenses-dry-run-'));
});
afterAll(() => rm(tmp, { recursive: true, force: true }));

type Row = { address: string; email: string; stages: Record<string, number>; alerts: number };

/** The dry run's table back into rows (a count of 0 is a stage the email does not carry). */
function tableRows(stdout: string): { rows: Row[]; total: Row; stages: string[] } {
  const lines = stdout.split('\n');
  const at = lines.findIndex((l) => l.startsWith('recipient '));
  const [, , ...stages] = lines[at]!.trim().split(/\s+/);
  stages.pop(); // total
  const parse = (line: string): Row => {
    const cells = line.trim().split(/\s+/);
    const [address, email] = line.startsWith('total') ? ['total', ''] : [cells.shift()!, cells.shift()!];
    if (line.startsWith('total')) cells.shift();
    const counts = cells.map(Number);
    const byStage = Object.fromEntries(stages.map((s, i) => [s, counts[i]!]).filter(([, n]) => n !== 0));
    return { address, email, stages: byStage, alerts: counts.at(-1)! };
  };
  const body = lines.slice(at + 1, lines.indexOf('', at));
  return { rows: body.slice(0, -1).map(parse), total: parse(body.at(-1)!), stages };
}

/** Alerts per stage in each outbox email's CSV, by recipient. */
async function outboxStages(workDir: string): Promise<Record<string, Record<string, number>>> {
  const dir = join(workDir, 'outbox');
  const out: Record<string, Record<string, number>> = {};
  for (const file of (await readdir(dir)).filter((f) => f.endsWith('.eml'))) {
    const mail = await simpleParser(await readFile(join(dir, file)));
    if (!mail.headers.has('x-pulse-license-alerts')) continue;
    const csv = mail.attachments.find((a) => a.contentType === 'text/csv')!;
    const stages: Record<string, number> = {};
    for (const row of csvRecords(parseCsv(csv.content.toString('utf8'))))
      stages[row.stage!] = (stages[row.stage!] ?? 0) + 1;
    out[(mail.to as { text: string }).text] = stages;
  }
  return out;
}

/** The stages of the license alerts events a webhook channel of the local sinks received. */
async function webhookStages(workDir: string, channel: string): Promise<Record<string, number>> {
  const dir = join(workDir, 'outbox', 'channels', channel);
  const out: Record<string, number> = {};
  for (const file of (await readdir(dir)).filter((f) => f.endsWith('-license.alerts.json'))) {
    const { payload } = JSON.parse(await readFile(join(dir, file), 'utf8'));
    for (const [stage, n] of Object.entries(payload.data.byStage as Record<string, number>))
      out[stage] = (out[stage] ?? 0) + n;
  }
  return out;
}

it('the dry run table holds exactly what the run then sends, per recipient and stage', async () => {
  const workDir = join(tmp, 'table');
  const dry = await pulseMain('licenses', 'alerts', '--local', '--work-dir', workDir, '--dry-run');
  expect(dry.stderr).toBe('');
  expect(dry.code).toBe(0);
  expect(dry.stdout).toMatch(
    /^Would send 3 emails and 3 channel messages with \d+ alerts \(6 first-run summaries: see licenses\.firstRun\):$/m,
  );
  const { rows, total, stages } = tableRows(dry.stdout);
  // Stage columns in lifecycle order; rows by alerts, then address.
  const ranks = stages.map((s) => lifecycleRank(s as Stage));
  expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
  expect(rows.map((r) => r.alerts)).toEqual([...rows.map((r) => r.alerts)].sort((a, b) => b - a));
  expect(rows.every((r) => r.email === 'summary')).toBe(true);
  expect(total.alerts).toBe(rows.reduce((n, r) => n + r.alerts, 0));
  for (const s of stages) expect(total.stages[s] ?? 0).toBe(rows.reduce((n, r) => n + (r.stages[s] ?? 0), 0));

  const dryJson = JSON.parse(
    (await pulseMain('licenses', '--local', '--work-dir', workDir, '--dry-run', '--json')).stdout,
  );
  expect(dryJson.recipients).toEqual(rows);

  const real = await pulseMain('licenses', '--local', '--work-dir', workDir, '--json');
  expect(real.code).toBe(0);
  const result = JSON.parse(real.stdout);
  expect(result.recipients).toEqual(rows);
  expect(result.counts.alertsSent).toBe(total.alerts);
  expect(result.counts.emails + result.counts.posts).toBe(rows.length);
  const emailRows = rows.filter((r) => !r.address.startsWith('channel:'));
  expect(await outboxStages(workDir)).toEqual(Object.fromEntries(emailRows.map((r) => [r.address, r.stages])));
  // The webhook channel's event carries its stages as data: the same as its row.
  expect(await webhookStages(workDir, 'pulse-events')).toEqual(
    rows.find((r) => r.address === 'channel:pulse-events')?.stages,
  );

  const after = await pulseMain('licenses', '--local', '--work-dir', workDir, '--dry-run');
  expect(after.stdout).toMatch(/^Nothing would be sent: no alert is due\.$/m);
}, 120_000);
