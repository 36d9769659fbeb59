/**
 * Every Pulse handler run from its synthesized bundle the way Lambda runs it (bundled-stack.ts): one synth with real
 * bundling of the example production config pointed at the local peers, then each function's `index.mjs` in a child
 * process against the emulator, dynalite, s3rver and the SMTP sink (Secrets Manager and SQS: local AWS-JSON stubs).
 * Covered per function: a normal run, a rerun that does nothing again; the copier at the service's session limit;
 * the stack secret still holding its placeholder.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHART_ASSET_FILES } from '../../../src/charts/assets.ts';
import { signedIn } from '../../helpers/emulator-session.ts';
import {
  type BundledPulse,
  type Invocation,
  SECRET_ARN,
  SERVICE_SESSION_LIMIT,
  startBundledPulse,
} from './bundled-stack.ts';

let pulse: BundledPulse;
beforeAll(async () => {
  pulse = await startBundledPulse();
}, 180_000);
afterAll(async () => {
  await pulse?.close();
});

const scheduled = {};
const mailsTo = () => pulse.peers.sink.messages().map((m) => m.to.join(','));
const keys = async (prefix: string) => {
  const listed = await pulse.peers.s3.send(
    new ListObjectsV2Command({ Bucket: pulse.peers.bucket, Prefix: prefix, MaxKeys: 1000 }),
  );
  return (listed.Contents ?? []).map((o) => o.Key!).sort();
};
const user = () => pulse.peers.emulator.credentials.userName;
const sessions = () => pulse.peers.emulator.state.sessions;
/** The one result of a one-event invocation; fails the test with what the handler threw. */
function only(inv: Invocation): unknown {
  expect(inv.results).toHaveLength(1);
  const [r] = inv.results;
  if (!r || !('result' in r)) throw new Error(`the handler threw: ${JSON.stringify(r)}\n${inv.stderr}`);
  return r.result;
}
const jobMetric = (inv: Invocation) => inv.metrics.map((m) => ({ job: m.job, JobFailed: m.JobFailed }));

describe('the synthesized bundles', () => {
  it('each function has its asset: index.mjs, its pulse.config.json, its templates', () => {
    for (const [name, fn] of Object.entries(pulse.functions)) {
      expect(existsSync(join(fn.assetDir, 'index.mjs')), name).toBe(true);
      expect(existsSync(join(fn.assetDir, 'pulse.config.json')), name).toBe(true);
    }
    expect(existsSync(join(pulse.functions.digest.assetDir, 'templates/digest.html'))).toBe(true);
    expect(existsSync(join(pulse.functions.digest.assetDir, 'templates/digest-report.html'))).toBe(true);
    // The chart renderer's wasm and fonts ship beside the digest's JS (docs/aws.md "Digest charts").
    for (const name of Object.keys(CHART_ASSET_FILES))
      expect(existsSync(join(pulse.functions.digest.assetDir, 'chart-assets', name)), name).toBe(true);
    expect(Object.keys(pulse.functions).sort()).toEqual(
      [
        'archive',
        'archive-copy',
        'archive-verify',
        'digest',
        'license-alerts',
        'license-report',
        'license-sync',
      ].sort(),
    );
  });
});

describe('placeholder credentials in the stack secret', () => {
  const upload = {
    Records: [{ s3: { bucket: { name: 'pulse-archive' }, object: { key: 'pulse/license-sync/incoming/1/k.csv' } } }],
  };
  it.each([
    ['digest', 'digest', scheduled],
    ['archive', 'archive', scheduled],
    ['license-alerts', 'license-alerts', scheduled],
    ['license-report', 'license-report', scheduled],
    ['license-sync', 'licenses-sync', upload],
    ['archive-copy', 'archive', { Records: [{ messageId: 'm-1', body: '{}' }] }],
  ] as const)(
    '%s: refused before any request reaches the service; one log line and JobFailed',
    async (fn, job, event) => {
      pulse.secrets.set(SECRET_ARN, pulse.placeholderSecret());
      try {
        const before = pulse.proxy.connections;
        const mails = mailsTo().length;
        const inv = await pulse.invoke(fn, [event]);
        const returned = only(inv);
        if (fn === 'archive-copy') expect(returned).toEqual({ batchItemFailures: [{ itemIdentifier: 'm-1' }] });
        else expect(Array.isArray(returned) ? returned[0] : returned).toMatchObject({ job, ok: false });
        expect(pulse.proxy.connections - before).toBe(0);
        expect(mailsTo()).toHaveLength(mails);
        const errors = inv.logs.filter((l) => l.level === 'ERROR');
        expect(errors).toHaveLength(1);
        expect(errors[0]!.message).toContain(`secret ${SECRET_ARN} are still the placeholder`);
        expect(jobMetric(inv)).toEqual([{ job, JobFailed: 1 }]);
        expect(inv.stdout + inv.stderr).not.toContain('generated-0123456789');
      } finally {
        pulse.secrets.set(SECRET_ARN, pulse.realSecret());
      }
    },
    60_000,
  );
});

describe('digest', () => {
  it('a scheduled run sends to every recipient through the SMTP sink; a rerun sends nothing', async () => {
    const first = await pulse.invoke('digest', [scheduled]);
    const result = only(first);
    expect(result).toMatchObject({ job: 'digest', ok: true });
    expect(
      mailsTo()
        .filter((to) => /ceo@|cpo@/.test(to))
        .sort(),
    ).toEqual(['ceo@example.com', 'cpo@example.com']);
    expect(jobMetric(first)).toEqual([{ job: 'digest', JobFailed: 0 }]);
    // The full report and the charts: the bundle's renderer read its wasm and fonts from chart-assets/.
    const archived = await keys('pulse/digests/');
    expect(archived.filter((k) => k.endsWith('/index.html'))).toHaveLength(1);
    expect(archived.filter((k) => k.endsWith('.png')).length).toBeGreaterThan(4);

    const before = mailsTo().length;
    const again = await pulse.invoke('digest', [scheduled]);
    expect(only(again)).toMatchObject({ job: 'digest', ok: true });
    expect(mailsTo()).toHaveLength(before);
  }, 120_000);
});

describe('archive: plan step and copiers', () => {
  it('the plan step queues one copy task per file through SQS', async () => {
    const inv = await pulse.invoke('archive', [scheduled]);
    expect(only(inv)).toMatchObject({ job: 'archive', ok: true });
    expect(pulse.queued.length).toBeGreaterThan(0);
    expect(pulse.sqs.calls.every((c) => c.target === 'AmazonSQS.SendMessageBatch')).toBe(true);
    expect(jobMetric(inv)).toEqual([{ job: 'archive', JobFailed: 0 }]);
  }, 120_000);

  it('at the session limit a copier hands its batch back as item failures, without throwing', async () => {
    const others = [];
    while (sessions().liveSessionsOf(user()).length < SERVICE_SESSION_LIMIT)
      others.push(await signedIn(pulse.peers.emulator));
    try {
      const batch = pulse.queued.slice(0, 4);
      const inv = await pulse.invoke('archive-copy', [
        { Records: batch.map((m) => ({ messageId: m.id, body: m.body, eventSource: 'aws:sqs' })) },
      ]);
      expect(only(inv)).toEqual({ batchItemFailures: batch.map((m) => ({ itemIdentifier: m.id })) });
    } finally {
      sessions().endAll(user());
    }
  }, 60_000);

  it('copiers (one warm container) copy every queued file into the bucket; the run finishes with its manifest', async () => {
    const batches: unknown[] = [];
    for (let i = 0; i < pulse.queued.length; i += 4)
      batches.push({
        Records: pulse.queued.slice(i, i + 4).map((m) => ({ messageId: m.id, body: m.body, eventSource: 'aws:sqs' })),
      });
    const before = sessions().signIns;
    const inv = await pulse.invoke('archive-copy', batches);
    sessions().endAll(user());
    for (const r of inv.results) expect(r).toEqual({ result: { batchItemFailures: [] } });
    // One container, one session for all its batches.
    expect(sessions().signIns - before).toBe(1);
    expect(jobMetric(inv)).toEqual([{ job: 'archive', JobFailed: 0 }]);
    const archived = await keys('pulse/');
    expect(archived.filter((k) => !k.includes('/digests/')).length).toBeGreaterThanOrEqual(pulse.queued.length);

    expect(archived.filter((k) => k.startsWith('pulse/manifests/'))).toHaveLength(1);

    // A rerun: the next plan queues every listed file again; the copiers find each already archived.
    const queued = pulse.queued.length;
    expect(only(await pulse.invoke('archive', [scheduled]))).toMatchObject({ job: 'archive', ok: true });
    const requeued = pulse.queued.slice(queued, queued + 4);
    expect(pulse.queued).toHaveLength(2 * queued);
    const rerun = await pulse.invoke('archive-copy', [
      { Records: requeued.map((m) => ({ messageId: m.id, body: m.body, eventSource: 'aws:sqs' })) },
    ]);
    sessions().endAll(user());
    expect(only(rerun)).toEqual({ batchItemFailures: [] });
    // Nothing copied again: the only new object is the new run's plan.
    const added = (await keys('pulse/')).filter((k) => !archived.includes(k));
    expect(added).toEqual([expect.stringMatching(/^pulse\/runs\/[^/]+\/plan\.json$/)]);
  }, 180_000);

  // Reads the manifest the test above wrote (tests in a file run in order).
  it('the daily check finds the manifest chain intact: JobSucceeded, no service call', async () => {
    const inv = await pulse.invoke('archive-verify', [scheduled]);
    expect(only(inv)).toMatchObject({ job: 'archive-verify', ok: true, errors: [] });
    expect(jobMetric(inv)).toEqual([{ job: 'archive-verify', JobFailed: 0 }]);
  });
});

describe('license alerts', () => {
  it('a run sends the routed alerts; a rerun sends nothing', async () => {
    const before = mailsTo().length;
    const first = await pulse.invoke('license-alerts', [{ detail: { now: true } }]);
    expect(only(first)).toMatchObject({ job: 'license-alerts', ok: true });
    const sent = mailsTo().slice(before);
    expect(sent.length).toBeGreaterThan(0);
    expect(
      sent.filter((to) => /growth@|subscriptions@/.test(to)),
      sent.join(' '),
    ).not.toEqual([]);
    expect(jobMetric(first)).toEqual([{ job: 'license-alerts', JobFailed: 0 }]);

    const after = mailsTo().length;
    expect(only(await pulse.invoke('license-alerts', [{ detail: { now: true } }]))).toMatchObject({ ok: true });
    expect(mailsTo()).toHaveLength(after);
  }, 120_000);
});

describe('license report', () => {
  it('a scheduled run snapshots the registry and sends the report; a rerun sends nothing', async () => {
    const before = mailsTo().length;
    const first = await pulse.invoke('license-report', [scheduled]);
    expect(only(first)).toMatchObject({ job: 'license-report', ok: true });
    expect(mailsTo().length).toBeGreaterThan(before);
    expect(await keys('pulse/license-reports/')).not.toEqual([]);

    const after = mailsTo().length;
    expect(only(await pulse.invoke('license-report', [scheduled]))).toMatchObject({ ok: true });
    expect(mailsTo()).toHaveLength(after);
  }, 120_000);
});

describe('license sync', () => {
  it('an S3 event for an uploaded CSV writes its result file; a rerun changes nothing', async () => {
    const product = pulse.peers.emulator.products[0]!.productId;
    const key = `pulse/license-sync/incoming/${product}/bundled keys.csv`;
    await pulse.peers.s3.send(
      new PutObjectCommand({
        Bucket: pulse.peers.bucket,
        Key: key,
        Body: 'licenseKey,licenseType,expiryDate\r\nBUNDLED-1,trial,2027-05-01\r\n',
      }),
    );
    const event = {
      Records: [
        {
          eventSource: 'aws:s3',
          eventName: 'ObjectCreated:Put',
          s3: {
            bucket: { name: pulse.peers.bucket },
            object: { key: encodeURIComponent(key).replace(/%2F/g, '/').replace(/%20/g, '+') },
          },
        },
      ],
    };
    const first = await pulse.invoke('license-sync', [event]);
    expect(only(first)).toEqual([
      expect.objectContaining({ job: 'licenses-sync', ok: true, counts: expect.objectContaining({ inserted: 1 }) }),
    ]);
    expect(await keys(`pulse/license-sync/results/${product}/`)).toEqual([
      `pulse/license-sync/results/${product}/bundled keys.result.csv`,
    ]);
    const again = await pulse.invoke('license-sync', [event]);
    expect(only(again)).toEqual([
      expect.objectContaining({ ok: true, counts: expect.objectContaining({ inserted: 0, unchanged: 1 }) }),
    ]);
  }, 120_000);
});
