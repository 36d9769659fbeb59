/**
 * Two live usage-alert runs at once, as two overlapping invocations of the function would be: over the local
 * runtime's real peers (emulator with its planted episodes, dynalite states and ledger, SMTP sink), each run with
 * its own ledger client and the 15-minute claim lease the functions use. Every change reaches each recipient once
 * (the ledger keys each email names, in X-Pulse-Usage-Alert-Keys, never repeat), together they tell every change a
 * single run would, and a third run afterwards tells nothing.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbLedger } from '../../src/adapters/aws/dynamodb-ledger.ts';
import { ConsoleLogger } from '../../src/adapters/console-logger.ts';
import { EXAMPLE_CONFIG, type LocalRuntime, startLocalRuntime } from '../../src/app/local-runtime.ts';
import { loadConfig } from '../../src/config/load.ts';
import { addDays } from '../../src/core/calendar.ts';
import { usageAlertLedgerKey } from '../../src/core/delivery/ledger-keys.ts';
import { fixedClock } from '../../src/ports/clock.ts';
import { judgeUsageAlerts, runUsageAlerts } from '../../src/usage-alerts/run-usage-alerts.ts';
import { seriesKey } from '../../src/usage-alerts/series.ts';
import { USAGE_ALERT_KEYS_HEADER } from '../../src/usage-alerts/tell-changes.ts';
import { TEST_TODAY } from '../helpers/emulator-session.ts';

const logger = new ConsoleLogger({ service: 'test', level: 'error', write: () => undefined });
const example = loadConfig(EXAMPLE_CONFIG);
const since = addDays(TEST_TODAY, -120);
const clock = fixedClock(`${TEST_TODAY}T12:00:00.000Z`);

let tmp: string;
let rt: LocalRuntime;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'pulse-usage-concurrent-'));
  rt = await startLocalRuntime({
    workDir: join(tmp, 'work'),
    config: example,
    logger,
    emulator: { clients: 400, seed: 7, today: TEST_TODAY },
  });
});
afterAll(async () => {
  await rt?.close();
  await rm(tmp, { recursive: true, force: true });
});

/** A live invocation's ports: its own ledger client with the functions' lease, the runtime's other peers. */
const invocation = () => ({
  ...rt.ports,
  clock,
  ledger: new DynamoDbLedger({ client: rt.peers.dynamodb, tableName: rt.peers.tableName }),
});

/** The ledger keys each email of the outbox names, one list per email. */
async function emails(): Promise<string[][]> {
  const files = (await readdir(rt.peers.outboxDir)).filter((f) => f.endsWith('.eml'));
  // A folded header: its value may start on the next line, each continuation line indented.
  const header = new RegExp(`^${USAGE_ALERT_KEYS_HEADER}:((?:[ \\t].*)?(?:\\r?\\n[ \\t].*)*)`, 'im');
  const keys: string[][] = [];
  for (const file of files) {
    const match = header.exec(await readFile(join(rt.peers.outboxDir, file), 'utf8'));
    if (match) keys.push(match[1]!.split(/\s+/).filter(Boolean));
  }
  return keys;
}
const keysEmailed = async () => (await emails()).flat();
/** A ledger key's series (rule, product, segment). */
const seriesOfKey = (key: string) => key.split('#').slice(1, 4).join('#');

describe('two usage-alert runs at once', () => {
  it('tell each change to each recipient once, together all of them; a run after them tells nothing', async () => {
    const expected = await judgeUsageAlerts(rt.config, { ...rt.ports, clock }, { since });
    expect(expected.changes.length).toBeGreaterThanOrEqual(4);
    const recipients = (ruleId: string) =>
      rt.config.usageAlerts!.rules.find((r) => r.id === ruleId)!.recipients.map((r) => r.address.toLowerCase());
    const wanted = expected.changes.flatMap((c) =>
      recipients(c.ruleId).map((to) =>
        usageAlertLedgerKey(seriesKey(c), c.period, c.repeat ? 'firing-again' : c.state, to),
      ),
    );

    const [a, b] = await Promise.all([
      runUsageAlerts(rt.config, invocation(), { since }),
      runUsageAlerts(rt.config, invocation(), { since }),
    ]);
    for (const run of [a, b]) expect(run.result.counts.failed + run.result.counts.unknown).toBe(0);
    const emailed = await keysEmailed();
    expect(new Set(emailed).size).toBe(emailed.length);
    expect([...emailed].sort()).toEqual([...wanted].sort());
    // A series' changes go out together, from whichever run claimed its first: the other holds the rest back, so
    // a reader never gets a resolve in one email while its firing is still on its way in another.
    const sent = await emails();
    for (const series of new Set(emailed.map(seriesOfKey)))
      expect(
        sent.filter((keys) => keys.some((k) => seriesOfKey(k) === series)),
        series,
      ).toHaveLength(1);

    const after = await runUsageAlerts(rt.config, invocation(), { since });
    expect(after.result.errors).toEqual([]);
    expect(after.result.counts).toMatchObject({ emails: 0, firing: 0, resolved: 0 });
    expect((await keysEmailed()).length).toBe(emailed.length);
  }, 120_000);
});
