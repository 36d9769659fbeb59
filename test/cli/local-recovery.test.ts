/**
 * A work directory whose local state a killed run damaged, through the real CLI: a 0-byte s3rver metadata file
 * (which made s3rver answer 500 to every bucket call) is moved aside with one warning and the run succeeds; a LevelDB
 * that does not open fails in one line that says what to do. No stack trace either way.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPulse, STACK_FRAME, writeExampleConfig } from '../helpers/pulse-process.ts';

/** The smallest product; its exceptions are a few dozen small files. */
const PRODUCT = '40000000017';
const ENTRY_DIR = ['pulse-archive', 'pulse', PRODUCT, 'exceptions', '2026', '10'];
let tmp: string;
let config: string;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'pulse-cli-recovery-'));
  config = await writeExampleConfig(tmp, 'config.json', (c) => {
    c.products = [{ id: PRODUCT }];
    delete c.usageAlerts; // its rules name the example's products
    c.digests = [];
  });
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const archive = (workDir: string) =>
  runPulse(['archive', '--local', '--work-dir', workDir, '--config', config, '--kind', 'exceptions', '--json'], {
    PULSE_LOCAL_EMULATOR: JSON.stringify({ clients: 400, today: '2026-11-20' }),
  });

describe('a damaged local work directory', () => {
  it('moves an s3rver entry with a 0-byte metadata file aside, warns once naming it, and archives it again', async () => {
    const workDir = join(tmp, 'empty-metadata');
    const first = await archive(workDir);
    expect(first.code, first.stderr).toBe(0);
    const listed = JSON.parse(first.stdout).counts.listed;

    const dir = join(workDir, 's3', ...ENTRY_DIR);
    const [name] = (await readdir(dir)).filter((f) => f.endsWith('.zip._S3rver_metadata.json'));
    const fileName = name!.slice(0, -'._S3rver_metadata.json'.length);
    await truncate(join(dir, name!), 0);

    const second = await archive(workDir);
    expect(second.stderr).not.toMatch(STACK_FRAME);
    expect(second.code, second.stderr).toBe(0);
    const lines = second.stderr.split('\n').filter((l) => l !== '');
    expect(lines).toHaveLength(1);
    const warning = JSON.parse(lines[0]!);
    const entry = [...ENTRY_DIR, fileName].join('/');
    expect(warning).toMatchObject({
      level: 'WARN',
      message: 'local S3: moved a broken entry aside (metadata file is empty: the write never finished)',
      entry,
      movedTo: expect.stringContaining(join(workDir, 's3-quarantine')),
    });
    // The whole entry is in the quarantine, bytes included; the bucket got the file again from the service.
    expect(await readFile(warning.movedTo)).toEqual(await readFile(join(dir, `${fileName}._S3rver_object`)));
    const [quarantine] = await readdir(join(workDir, 's3-quarantine'));
    expect((await readdir(join(workDir, 's3-quarantine', quarantine!, ...ENTRY_DIR))).sort()).toEqual(
      ['_S3rver_metadata.json', '_S3rver_object', '_S3rver_object.md5'].map((s) => `${fileName}.${s}`),
    );
    expect(JSON.parse(second.stdout).counts).toMatchObject({ listed, archived: 1, skippedSame: listed - 1 });

    const third = await archive(workDir);
    expect(third.code).toBe(0);
    expect(third.stderr).toBe('');
  });

  it('fails in one line naming the state table directory when its LevelDB does not open', async () => {
    const workDir = join(tmp, 'leveldb');
    expect((await archive(workDir)).code).toBe(0);
    await writeFile(join(workDir, 'dynamodb', 'CURRENT'), 'MANIFEST-999999\n');

    const r = await archive(workDir);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).not.toMatch(STACK_FRAME);
    const dynamoDir = join(workDir, 'dynamodb');
    expect(r.stderr).toMatch(
      new RegExp(
        `^pulse archive: ${dynamoDir}: the local DynamoDB state cannot be opened \\(.+\\); move the directory aside`,
      ),
    );
    expect(r.stderr).toContain(`mv ${dynamoDir} ${dynamoDir}.broken`);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    // Nothing stays locked: the peers that had started were stopped.
    expect(existsSync(join(workDir, 'peers.lock'))).toBe(false);
  });
});
