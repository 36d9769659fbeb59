/**
 * The archive run's channel message (src/archive/run-message.ts), from manifests: which event a run is, what a
 * reader sees of a clean run and of one with ten thousand failed files whose names and reasons are hostile, and that
 * each renders within its channel's limits (the Slack checks, the official Adaptive Card parser) with the webhook's
 * data bounded.
 */
import { describe, expect, it } from 'vitest';
import { emptyCounts } from '../../src/archive/finish-run.ts';
import { MANIFEST_FORMAT, type Manifest, type ManifestFile } from '../../src/archive/manifest.ts';
import { archiveRunMessage, EVENT_PROBLEMS, LISTED_PROBLEMS } from '../../src/archive/run-message.ts';
import { renderChannelRequest } from '../../src/core/channels/render-channel.ts';
import type { SlackPayload } from '../../src/core/channels/slack.ts';
import type { TeamsPayload } from '../../src/core/channels/teams.ts';
import { expectSlackWithinLimits, expectTeamsValid, HOSTILE } from '../core/channels/channel-checks.ts';

const PRODUCT = '12345678901';
const config = { products: [{ id: PRODUCT, name: 'Example <!channel> Desktop' }] } as const;
const counts = (c: Partial<Record<string, number>>) => ({ ...emptyCounts(), ...c });

const manifest = (over: Partial<Manifest>): Manifest => ({
  format: MANIFEST_FORMAT,
  runId: '2026-11-27T02-20-00.000Z',
  startedAt: '2026-11-27T02:20:00.000Z',
  finishedAt: '2026-11-27T02:31:07.000Z',
  previous: null,
  complete: true,
  problems: [],
  counts: counts({ listed: 3, archived: 2, skippedSame: 1, bytes: 3 * 1024 * 1024 }),
  kinds: [{ productId: PRODUCT, kind: 'exceptions', status: 'listed', openSkipped: 0 }],
  files: [file('a.zip', 'archived'), file('b.zip', 'archived'), file('c.zip', 'skippedSame')],
  errors: [],
  channels: ['ops-hook'],
  ...over,
});

function file(fileName: string, outcome: ManifestFile['outcome'], reason?: string): ManifestFile {
  return { productId: PRODUCT, kind: 'exceptions', fileName, outcome, ...(reason ? { reason } : {}) };
}

const run = (m: Manifest) => ({ manifest: m, manifestKey: `pulse/manifests/${m.runId}.json` });
const render = (kind: 'slack' | 'teams' | 'webhook', m: Manifest) =>
  renderChannelRequest(kind, archiveRunMessage(config, run(m)), {
    eventId: 'msg_test',
    now: new Date('2026-11-27T02:32:00Z'),
    signingSecret: `whsec_${Buffer.alloc(24, 7).toString('base64')}`,
  });

describe('a clean run', () => {
  const message = archiveRunMessage(config, run(manifest({})));

  it('is archive.completed, with what it archived and wrote', () => {
    expect(message.event).toBe('archive.completed');
    expect(message.summary).toBe('Archive run complete: 2 new, 1 already archived, 3.0 MiB written');
    expect(message.title).toBe('Export archive · run of 2026-11-27 02:20 UTC');
    expect(message.facts).toEqual([
      { label: 'Files listed', value: '3' },
      { label: 'Archived', value: '2' },
      { label: 'Already archived', value: '1' },
      { label: 'Failed', value: '0' },
      { label: 'Written', value: '3.0 MiB' },
    ]);
    expect(message.lines).toEqual([]);
    expect(message.sections).toEqual([
      {
        title: `Example <!channel> Desktop (${PRODUCT})`,
        facts: [
          { label: 'Archived', value: '2' },
          { label: 'Already archived', value: '1' },
          { label: 'Failed', value: '0' },
        ],
      },
    ]);
    expect(message.occurredAt).toBe('2026-11-27T02:31:07.000Z');
    expect(message.data).toMatchObject({ runId: '2026-11-27T02-20-00.000Z', complete: true, problemsOmitted: 0 });
  });
});

describe('a run that failed everywhere, in hostile words', () => {
  const failures = Array.from({ length: 10_000 }, (_, i) => {
    const h = HOSTILE[i % HOSTILE.length]!;
    return file(`${h.slice(0, 40)}-${i}.zip`, 'failed', `download failed: ${h}`);
  });
  const errors = failures.map((f) => `${f.fileName}: ${f.reason}`);
  const failed = manifest({
    complete: false,
    problems: ['nothing was listed: SessionLimitError: <!here> 5 sessions', ...errors.slice(0, 2)],
    counts: counts({ listed: 10_000, failed: 10_001 }),
    kinds: [{ productId: PRODUCT, kind: 'exceptions', status: 'failed', reason: 'listing failed', openSkipped: 0 }],
    files: failures,
    errors,
  });
  const message = archiveRunMessage(config, run(failed));

  it('is archive.failed, says it could not look everywhere, and lists a few problems once each', () => {
    expect(message.event).toBe('archive.failed');
    expect(message.summary).toBe(
      'Archive run failed: 10001 failed, 0 rejected of 10000 files; it could not look at everything',
    );
    expect(message.lines).toHaveLength(LISTED_PROBLEMS + 1);
    expect(message.lines.at(-1)).toBe(`and ${10_001 - LISTED_PROBLEMS} more in the manifest`);
    expect(message.sections[0]).toMatchObject({ text: 'not listed: exceptions' });
    expect(message.data.problems).toHaveLength(EVENT_PROBLEMS);
    expect(message.data.problemsOmitted).toBe(10_001 - EVENT_PROBLEMS);
  });

  it('renders within each channel’s limits', () => {
    const slack = render('slack', failed);
    expectSlackWithinLimits(JSON.parse(slack.body) as SlackPayload);
    expect(slack.body).not.toContain('<!channel>');
    expect(slack.body).not.toContain('<!here>');
    expectTeamsValid(JSON.parse(render('teams', failed).body) as TeamsPayload);
    // The webhook event stays small however many files failed: the manifest has them all.
    expect(render('webhook', failed).body.length).toBeLessThan(64 * 1024);
  });
});
