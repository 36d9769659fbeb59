/**
 * The archive key rule (src/core/archive-key.ts with src/config/archive-key-parts.ts) and every key builder that uses it: each refuses an unsafe part,
 * so a bad prefix or id cannot reach the store even when it got past the config (Lambda env, tests, future code).
 */
import { describe, expect, it } from 'vitest';
import { S3ArchiveStore, s3ClientFor } from '../../src/adapters/aws/s3-archive-store.ts';
import { checksumKey } from '../../src/archive/copy/checksum-file.ts';
import { coverageKey } from '../../src/archive/coverage.ts';
import { archiveKey } from '../../src/archive/key-layout.ts';
import { manifestFolder, manifestKey } from '../../src/archive/manifest.ts';
import { planKey } from '../../src/archive/plan-store.ts';
import { unsafeKeyPartReason, unsafeTemplateReason } from '../../src/config/archive-key-parts.ts';
import { DEFAULT_KEY_TEMPLATE } from '../../src/config/schema.ts';
import { ArchiveKeyError, checkedKey, folderUnder, keyUnder } from '../../src/core/archive-key.ts';
import { browserCopyKey, digestArchivePrefix } from '../../src/core/digest-report.ts';

const RUN = '2026-11-20T12-00-00.000Z';
const UNSAFE_PREFIXES: [string, RegExp][] = [
  ['../../../x', /"\." or "\.\." segment/],
  ['pulse/./x', /"\." or "\.\." segment/],
  ['pulse/..', /"\." or "\.\." segment/],
  ['a\\..\\b', /backslash/],
  ['pul\nse', /control character/],
  ['pulsé', /non-ASCII/],
  ['<prefix>', /"<" or ">"/],
];

/** Each key builder, given an unsafe prefix (or id, for the digest's). */
const BUILDERS: [string, (bad: string) => string][] = [
  ['archiveKey (exports)', (p) => archiveKey(DEFAULT_KEY_TEMPLATE, keyParts(p))],
  ['manifestKey', (p) => manifestKey(p, RUN)],
  ['manifestFolder', (p) => manifestFolder(p)],
  ['coverageKey', (p) => coverageKey(p, RUN)],
  ['planKey', (p) => planKey(p, RUN)],
  ['digestArchivePrefix (prefix)', (p) => digestArchivePrefix(p, 'exec-weekly', '2026-W46')],
  ['digestArchivePrefix (digest id)', (p) => digestArchivePrefix('pulse', p, '2026-W46')],
];

function keyParts(prefix: string) {
  const fileName = '12345678901_cust_2026-11-19.zip';
  return { prefix, product: '12345678901', kind: 'customEvents', fileDate: '2026-11-19', fileName };
}

describe('the archive key rule', () => {
  it.each(UNSAFE_PREFIXES)('refuses the part %j', (part, reason) => {
    expect(unsafeKeyPartReason(part)).toMatch(reason);
  });

  it('accepts safe parts and keys', () => {
    for (const part of ['', 'pulse', 'org/pulse/', 'a..b', '.hidden', 'x-y_z.json'])
      expect(unsafeKeyPartReason(part)).toBeUndefined();
    expect(checkedKey('pulse/manifests/a.json')).toBe('pulse/manifests/a.json');
  });

  it('refuses keys that are empty, absolute, folders or too long', () => {
    expect(() => checkedKey('')).toThrow(/is empty/);
    expect(() => checkedKey('/etc/passwd')).toThrow(/starts with "\/"/);
    expect(() => checkedKey('pulse/')).toThrow(/ends with "\/"/);
    expect(() => checkedKey('p'.repeat(1025))).toThrow(/longer than 1024 bytes/);
  });

  it('checks key templates: known placeholders, filled in a safe part', () => {
    expect(unsafeTemplateReason(DEFAULT_KEY_TEMPLATE)).toBeUndefined();
    expect(unsafeTemplateReason('<prefix>/<yyyy>-<mm>-<dd>/<fileName>')).toBeUndefined();
    expect(unsafeTemplateReason('<prefix>/<month>/<fileName>')).toMatch(/unknown placeholder <month>/);
    expect(unsafeTemplateReason('<prefix>/../<fileName>')).toMatch(/"\." or "\.\." segment/);
    expect(unsafeTemplateReason('/<fileName>')).toMatch(/starts with "\/"/);
    expect(unsafeTemplateReason('<fileName>/')).toMatch(/ends with "\/"/);
  });

  it('keyUnder joins a trimmed prefix and safe parts; an empty part or prefix is refused or dropped', () => {
    expect(keyUnder('pulse', 'manifests', 'a.json')).toBe('pulse/manifests/a.json');
    expect(keyUnder('/org/pulse/', 'a.json')).toBe('org/pulse/a.json');
    expect(keyUnder('', 'a.json')).toBe('a.json');
    expect(folderUnder('', 'manifests')).toBe('manifests/');
    expect(() => keyUnder('pulse', '')).toThrow(/part "" is empty/);
    expect(() => keyUnder('pulse', '/etc')).toThrow(/starts with "\/"/);
    expect(() => keyUnder('pulse', 'runs', '..', 'plan.json')).toThrow(ArchiveKeyError);
  });
});

describe('every key builder refuses an unsafe part', () => {
  for (const [name, build] of BUILDERS) {
    it.each(UNSAFE_PREFIXES)(`${name}: %j`, (bad, reason) => {
      expect(() => build(bad)).toThrow(ArchiveKeyError);
      expect(() => build(bad)).toThrow(reason);
    });
  }

  it('the digest record and checksum keys are checked too', () => {
    expect(browserCopyKey(digestArchivePrefix('pulse', 'exec-weekly', '2026-W46'))).toBe(
      'pulse/digests/exec-weekly/2026-W46/index.html',
    );
    expect(() => browserCopyKey('../')).toThrow(ArchiveKeyError);
    expect(() => checksumKey('../x.zip')).toThrow(ArchiveKeyError);
  });

  it('keeps the keys of a safe prefix as they were', () => {
    expect(manifestKey('pulse', RUN)).toBe(`pulse/manifests/${RUN}.json`);
    expect(manifestKey('', RUN)).toBe(`manifests/${RUN}.json`);
    expect(coverageKey('pulse/', RUN)).toBe(`pulse/coverage/${RUN}.json`);
    expect(planKey('pulse', RUN)).toBe(`pulse/runs/${RUN}/plan.json`);
    expect(digestArchivePrefix('', 'exec-weekly', '2026-W46')).toBe('digests/exec-weekly/2026-W46/');
  });
});

describe('S3ArchiveStore, the last line', () => {
  // No server behind the endpoint: the store must refuse before sending anything.
  const store = new S3ArchiveStore({ client: s3ClientFor({ endpoint: 'http://127.0.0.1:9' }), bucket: 'b' });

  it.each(['../x', 'pulse/../../x', '/etc/passwd', 'a\\b', 'pulse/'])('refuses %j before any request', async (key) => {
    await expect(store.put(key, 'x', { contentType: 'text/plain' })).rejects.toThrow(ArchiveKeyError);
    await expect(store.head(key)).rejects.toThrow(ArchiveKeyError);
    await expect(store.get(key)).rejects.toThrow(ArchiveKeyError);
  });

  it('refuses an unsafe listing prefix', async () => {
    const listing = store.list('../');
    await expect(listing[Symbol.asyncIterator]().next()).rejects.toThrow(ArchiveKeyError);
  });
});
