/**
 * `$PULSE_LOCAL_S3_PART_SIZE`: the local archive's multipart part size. The local S3 takes parts below S3's 5 MiB
 * minimum, so a small value sends the emulator's small export files through the multipart upload (what the chaos
 * runs use to inject part and completion faults); anything wrong in it is a usage error.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localS3PartSize } from '../../src/app/local-options.ts';
import { main } from '../../src/cli/main.ts';

const PART = 16 * 1024;
let workDir: string;
beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'pulse-local-s3-part-'));
});
afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

async function archiveWith(partSize: string, args: string[] = ['--dry-run']) {
  let stdout = '';
  let stderr = '';
  const code = await main(['archive', '--local', '--work-dir', workDir, ...args], {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    env: { PULSE_LOCAL_S3_PART_SIZE: partSize, PULSE_LOCAL_EMULATOR: '{"clients":300}' },
  });
  return { code, stdout, stderr };
}

/** Every archived export ZIP in the local bucket: its bytes and its s3rver metadata. */
function archivedZips(dir: string): { key: string; bytes: Buffer; metadata: Record<string, string> }[] {
  const out: { key: string; bytes: Buffer; metadata: Record<string, string> }[] = [];
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    if (!name.endsWith('.zip._S3rver_object') || !statSync(join(dir, name)).isFile()) continue;
    const base = join(dir, name.slice(0, -'._S3rver_object'.length));
    out.push({
      key: name.slice(0, -'._S3rver_object'.length),
      bytes: readFileSync(join(dir, name)),
      metadata: JSON.parse(readFileSync(`${base}._S3rver_metadata.json`, 'utf8')),
    });
  }
  return out;
}

describe('$PULSE_LOCAL_S3_PART_SIZE', () => {
  it('reads a part size in bytes; unset means the default', () => {
    expect(localS3PartSize({})).toBeUndefined();
    expect(localS3PartSize({ PULSE_LOCAL_S3_PART_SIZE: '16384' })).toBe(16384);
  });

  it('refuses what is not a whole number of bytes from 1024, with exit 2 naming it', async () => {
    for (const value of ['abc', '100', '1.5', '-2048', '8MiB']) {
      expect(await archiveWith(value), value).toEqual({
        code: 2,
        stdout: '',
        stderr: `pulse: $PULSE_LOCAL_S3_PART_SIZE: expected a part size in bytes from 1024 to 5368709120, got "${value}"\n`,
      });
    }
  });

  it('files above one part go up multipart, verified: each object is the bytes its checksum file names', async () => {
    const r = await archiveWith(String(PART), []);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^archive: ok \(listed (\d+), archived \1,.* failed 0, rejected 0/);
    const zips = archivedZips(join(workDir, 's3', 'pulse-archive'));
    const multipart = zips.filter((z) => z.bytes.length >= PART);
    expect(multipart.length).toBeGreaterThan(0);
    for (const z of zips) {
      const sha256 = createHash('sha256').update(z.bytes).digest('hex');
      const checksumFile = readFileSync(join(workDir, 's3', 'pulse-archive', `${z.key}.sha256._S3rver_object`), 'utf8');
      expect(checksumFile.slice(0, 64), z.key).toBe(sha256);
      // A multipart upload fixes its metadata before the hash is known: only a single PutObject carries it.
      expect(z.metadata['x-amz-meta-sha256'], z.key).toBe(z.bytes.length >= PART ? undefined : sha256);
    }
  });
});
