/**
 * startLocalPeers: every peer in-process on 127.0.0.1, each adapter used once over real sockets; then a second start
 * on the same work directory sees the first run's ledger record, archive object and emulator data directory.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalPeers, startLocalPeers, WorkDirBusyError } from '../../src/adapters/local/local-peers.ts';
import { TEST_TODAY } from '../helpers/emulator-session.ts';

let workDir: string;
const emulator = { clients: 50, today: TEST_TODAY };

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'pulse-work-'));
});
afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

describe('startLocalPeers', () => {
  it('starts every peer with ready adapters, and a second run on the same work dir sees the first', async () => {
    let peers: LocalPeers | undefined = await startLocalPeers({ workDir, emulator });
    try {
      expect(peers.workDir).toBe(workDir);
      const csrf = await fetch(`${peers.emulator.baseUrl}/v3/request-csrf`, {
        headers: { Origin: peers.emulator.origin },
      });
      expect(csrf.status).toBe(204);

      expect(await peers.ledger.claim('digest#exec-weekly#2026-W47#ceo@example.com')).toEqual({ outcome: 'claimed' });
      await peers.ledger.complete('digest#exec-weekly#2026-W47#ceo@example.com', { messageId: '<m@x>' });
      await peers.archive.put('digests/exec-weekly/2026-W47/digest.html', '<p>hi</p>', {
        contentType: 'text/html',
        metadata: { week: '2026-W47' },
        ifNoneMatch: true,
      });
      const link = await peers.archive.linkTo('digests/exec-weekly/2026-W47/digest.html');
      expect(link.startsWith(peers.s3Endpoint)).toBe(true);
      expect(await (await fetch(link)).text()).toBe('<p>hi</p>');
      await peers.mailer.send({
        from: 'pulse@example.com',
        to: 'ceo@example.com',
        subject: 's',
        text: 't',
        html: '<p>h</p>',
      });
      expect(peers.sink.messages()).toHaveLength(1);
      expect((await readdir(peers.outboxDir)).sort().map((f) => f.replace(/^.*-/, ''))).toEqual([
        'ceo@example.com.eml',
        'ceo@example.com.html',
      ]);
      await peers.close();
      await peers.close(); // idempotent

      peers = await startLocalPeers({ workDir, emulator });
      expect(await peers.ledger.claim('digest#exec-weekly#2026-W47#ceo@example.com')).toEqual({
        outcome: 'done',
        detail: { messageId: '<m@x>' },
      });
      expect(await peers.archive.head('digests/exec-weekly/2026-W47/digest.html')).toMatchObject({
        size: 9,
        metadata: { week: '2026-W47' },
      });
      expect(existsSync(join(workDir, 'emulator'))).toBe(true);
      await expect(startLocalPeers({ workDir, emulator })).rejects.toBeInstanceOf(WorkDirBusyError);
      expect(await peers.ledger.get('digest#exec-weekly#2026-W47#ceo@example.com')).toMatchObject({ state: 'done' });
    } finally {
      await peers?.close();
    }
  });

  it('stops what it started when a later step fails', async () => {
    const badDir = await mkdtemp(join(tmpdir(), 'pulse-work-'));
    // An invalid emulator option fails before anything listens...
    await expect(startLocalPeers({ workDir: badDir, emulator: { clients: 0 } })).rejects.toThrow(/clients/);
    // ...an invalid bucket name after the emulator, dynalite and s3rver started: all must be stopped again and the
    // work directory unlocked, or the next start would be refused.
    await expect(startLocalPeers({ workDir: badDir, emulator, bucket: 'Invalid_Bucket!' })).rejects.toMatchObject({
      name: 'InvalidBucketName',
    });
    expect(existsSync(join(badDir, 'peers.lock'))).toBe(false);
    const again = await startLocalPeers({ workDir: badDir, emulator });
    await again.close();
    await rm(badDir, { recursive: true, force: true });
  });
});
