/**
 * Every usage alert carries its evidence (src/usage-alerts/evidence.ts), over the real local peers (emulator,
 * dynalite, s3rver, SMTP sink): a live run with changes keeps one write-once object under
 * `pulse/usage-alerts/evidence/<date>/` before it tells them, and its email names it; the changes recomputed from
 * the object alone (recompute.ts, `pulse usage-alerts recompute`) equal the ones told; a rerun with nothing new
 * writes nothing; and when the evidence cannot be written nothing is told and no state is written, the error named,
 * so the next run tells the same changes with their evidence.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbUsageAlertStates } from '../../src/adapters/aws/dynamodb-usage-alert-states.ts';
import { S3ArchiveStore } from '../../src/adapters/aws/s3-archive-store.ts';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { UsageAlerts } from '../../src/config/usage-alerts-schema.ts';
import { fixedClock } from '../../src/ports/clock.ts';
import { EvidenceFormatError, parseEvidence, type UsageAlertEvidence } from '../../src/usage-alerts/evidence.ts';
import { recomputeEvidence } from '../../src/usage-alerts/recompute.ts';
import { runUsageAlerts } from '../../src/usage-alerts/run-usage-alerts.ts';
import { seriesKey } from '../../src/usage-alerts/series.ts';
import { pulseMain } from '../helpers/cli-main.ts';
import { DIGEST_TODAY, type LocalDigest, startLocalDigest } from '../helpers/local-digest.ts';

let local: LocalDigest;
let states: DynamoDbUsageAlertStates;
beforeAll(async () => {
  local = await startLocalDigest({ digests: [] });
  states = new DynamoDbUsageAlertStates({ client: local.peers.dynamodb, tableName: local.peers.tableName });
}, 60_000);
afterAll(() => local?.close());

const AT = `${DIGEST_TODAY}T10:00:00.000Z`;
const EVIDENCE = 'pulse/usage-alerts/evidence/';

/** A rule that fires on any active client: each product's first judged period fires. */
const configWith = (id: string) => ({
  ...local.config,
  usageAlerts: UsageAlerts.parse({
    rules: [
      {
        id,
        productIds: local.config.products.map((p) => p.id),
        metric: { kind: 'clients', status: 'active' },
        period: { unit: 'day' },
        condition: { kind: 'threshold', above: 0 },
        owner: 'owner@example.com',
        recipients: [{ address: 'ops@example.com' }],
      },
    ],
  }),
});

const portsWith = (archive = local.peers.archive, at = AT) => ({
  ...local.ports(fixedClock(at)),
  archive,
  usageAlertStates: states,
});

const evidenceKeys = async () => {
  const keys: string[] = [];
  for await (const o of local.peers.archive.list(EVIDENCE)) keys.push(o.key);
  return keys.sort();
};
const readEvidence = async (key: string): Promise<{ text: string; evidence: UsageAlertEvidence }> => {
  const text = Buffer.from((await local.peers.archive.get(key))!).toString('utf8');
  return { text, evidence: parseEvidence(text, key) };
};

describe('usage alert evidence', () => {
  it('a live run keeps its evidence before telling, names it in the email, and it recomputes to what was told', async () => {
    const config = configWith('evidence-kept');
    const { result, changes } = await runUsageAlerts(config, portsWith());
    expect(result.errors).toEqual([]);
    expect(result.ok).toBe(true);
    expect(changes.length).toBe(config.products.length);
    expect(result.counts.emails).toBe(1);

    const keys = await evidenceKeys();
    expect(keys).toHaveLength(1);
    const key = keys[0]!;
    expect(key).toMatch(new RegExp(`^${EVIDENCE}${DIGEST_TODAY}/${DIGEST_TODAY}T10-00-00\\.000Z-[0-9a-f]{12}\\.json$`));
    const uri = `s3://${local.peers.bucket}/${key}`;
    expect(result.outputs).toEqual([uri]);

    const { text, evidence } = await readEvidence(key);
    expect(evidence.judgedAt).toBe(AT);
    expect(evidence.rules).toEqual(config.usageAlerts.rules);
    // Each call with its operation, product, request and raw result: one client report per product.
    expect(evidence.calls).toHaveLength(config.products.length);
    for (const call of evidence.calls) {
      expect(call).toMatchObject({ operationId: 'dateRangeReport', answered: true });
      expect(call.request).toMatchObject({ dateSplit: 'day', startDate: expect.any(String) });
      expect(Object.keys(call.result as object).length).toBeGreaterThanOrEqual(3);
    }
    // Per change: its verdict, its figures, the series and the periods judged (first judged: no state before).
    for (const change of evidence.changes) {
      expect(change.verdict).toMatchObject({ state: 'firing', reason: expect.stringMatching(/above 0/) });
      expect(change.evidence.at(-1)!.period).toBe(change.period);
      expect(change.period >= change.judged.from && change.period <= change.judged.to).toBe(true);
      const series = evidence.series.find((s) => s.key === change.series)!;
      expect(series).toMatchObject({ start: null, from: change.judged.from, to: change.judged.to });
      expect(series.points!.map((p) => p.period)).toContain(change.period);
    }
    expect(evidence.changes.map(({ series: _s, judged: _j, ...c }) => c)).toEqual(JSON.parse(JSON.stringify(changes)));

    const recomputed = recomputeEvidence(evidence);
    expect(recomputed.differences).toEqual([]);
    expect(recomputed.same).toBe(true);
    expect(recomputed.recomputed).toHaveLength(changes.length);

    // The email names it, short, under the footer (HTML and text).
    const [mail] = (await local.mails()).filter((m) => m.parsed.headers.get('x-pulse-usage-alerts') !== undefined);
    expect(mail!.parsed.text).toContain(`Evidence (the answers and figures judged): ${uri}`);
    expect(mail!.parsed.html || '').toContain(uri);

    // `pulse usage-alerts recompute` on the object as a file: the same changes, exit 0.
    const file = join(local.peers.outboxDir, 'evidence.json');
    await writeFile(file, text);
    const cli = await pulseMain(['usage-alerts', 'recompute', '--evidence', file, '--json']);
    expect(cli.code, cli.stderr).toBe(EXIT.ok);
    expect(JSON.parse(cli.stdout)).toMatchObject({ same: true, differences: [] });
  }, 60_000);

  it('a rerun with nothing new to tell writes no evidence', async () => {
    const before = await evidenceKeys();
    const { result, changes } = await runUsageAlerts(configWith('evidence-kept'), portsWith());
    expect(result.ok).toBe(true);
    expect(changes).toEqual([]);
    expect(await evidenceKeys()).toEqual(before);
  }, 60_000);

  it('a change judged from a stored state recomputes from the state recorded with it', async () => {
    // A day later, the bar raised past every figure: each firing series resolves from its stored state.
    const config = configWith('evidence-kept');
    const raised = { ...config.usageAlerts.rules[0]!, condition: { kind: 'threshold' as const, above: 1e9 } };
    const nextDay = `2026-11-24T10:00:00.000Z`;
    const before = await evidenceKeys();
    const { result, changes } = await runUsageAlerts(
      { ...config, usageAlerts: { rules: [raised] } },
      portsWith(local.peers.archive, nextDay),
    );
    expect(result.errors).toEqual([]);
    expect(changes.map((c) => c.state)).toEqual(config.products.map(() => 'resolved'));
    const [key] = (await evidenceKeys()).filter((k) => !before.includes(k));
    const { evidence } = await readEvidence(key!);
    for (const series of evidence.series) expect(series.start).toMatchObject({ firing: true });
    expect(evidence.rules).toEqual([raised]);
    expect(recomputeEvidence(evidence)).toMatchObject({ same: true, differences: [] });
  }, 60_000);

  it('evidence that was not what the run told shows as a difference, and the CLI exits 1', async () => {
    const [key] = await evidenceKeys();
    const { evidence } = await readEvidence(key!);
    expect(evidence.changes.every((c) => c.state === 'firing')).toBe(true);
    const tampered = structuredClone(evidence);
    tampered.changes[0]!.state = 'resolved';
    const r = recomputeEvidence(tampered);
    expect(r.same).toBe(false);
    expect(r.differences).toEqual([
      expect.stringMatching(/^recorded, not recomputed: .* resolved /),
      expect.stringMatching(/^recomputed, not recorded: .* firing /),
    ]);
    const file = join(local.peers.outboxDir, 'tampered.json');
    await writeFile(file, JSON.stringify(tampered));
    const cli = await pulseMain(['usage-alerts', 'recompute', '--evidence', file]);
    expect(cli.code).toBe(EXIT.failure);
    const n = tampered.changes.length;
    expect(cli.stdout).toMatch(
      `usage-alerts recompute: DIFFERENT (${n} changes recorded, ${n} recomputed) from ${file}`,
    );
    expect(cli.stderr).toContain('differs: recorded, not recomputed');
    expect(() => parseEvidence('{"kind":"something else"}', 'x.json')).toThrow(EvidenceFormatError);
    const notEvidence = join(local.peers.outboxDir, 'not-evidence.json');
    await writeFile(notEvidence, '{"kind":"something else"}');
    const bad = await pulseMain(['usage-alerts', 'recompute', '--evidence', notEvidence]);
    expect(bad.code).toBe(EXIT.usage);
    expect(bad.stderr).toContain(`usage alert evidence ${notEvidence} is malformed at kind`);
  }, 60_000);

  it('evidence that cannot be written: nothing told, no state written, the error named; the next run tells it', async () => {
    const config = configWith('evidence-lost');
    // A real S3 refusal: the peer has no such bucket.
    const broken = new S3ArchiveStore({
      client: local.peers.s3,
      bucket: 'no-such-bucket',
      emulateConditionalWrites: true,
    });
    const mails = local.peers.sink.messages().length;
    const failed = await runUsageAlerts(config, portsWith(broken));
    expect(failed.result.ok).toBe(false);
    expect(failed.result.errors).toEqual([
      expect.stringMatching(
        /^EvidenceNotWrittenError: usage alert evidence pulse\/usage-alerts\/evidence\/\S+\.json not written: NoSuchBucket: .*: nothing is told$/,
      ),
    ]);
    expect(failed.result.counts).toMatchObject({ emails: 0, posts: 0 });
    expect(failed.changes.length).toBe(config.products.length);
    expect(local.peers.sink.messages()).toHaveLength(mails);
    for (const c of failed.changes) expect(await states.get(seriesKey(c))).toBeUndefined();

    // An hour later, with the archive back: the same changes, told once, with their evidence.
    const later = `${DIGEST_TODAY}T11:00:00.000Z`;
    const again = await runUsageAlerts(config, portsWith(local.peers.archive, later));
    expect(again.result.errors).toEqual([]);
    expect(again.changes.map((c) => [c.productId, c.period, c.state])).toEqual(
      failed.changes.map((c) => [c.productId, c.period, c.state]),
    );
    expect(again.result.counts.emails).toBe(1);
    expect(await evidenceKeys()).toContainEqual(expect.stringContaining(`${DIGEST_TODAY}T11-00-00.000Z-`));
    for (const c of again.changes) expect(await states.get(seriesKey(c))).toMatchObject({ firing: true });
  }, 60_000);
});
