import { describe, expect, it } from 'vitest';
import { ArchiveKeyError, archiveKey, type KeyParts } from '../../src/archive/key-layout.ts';
import { DEFAULT_KEY_TEMPLATE } from '../../src/config/schema.ts';

const parts: KeyParts = {
  prefix: 'pulse',
  product: '12345678901',
  kind: 'customEvents',
  fileDate: '2026-11-19',
  fileName: '12345678901_cust_2026-11-19.zip',
};

describe('archiveKey', () => {
  it('fills the default template', () => {
    expect(archiveKey(DEFAULT_KEY_TEMPLATE, parts)).toBe(
      'pulse/12345678901/customEvents/2026/11/12345678901_cust_2026-11-19.zip',
    );
  });

  it('fills every placeholder, as often as the template uses it', () => {
    const template = 'archive/<kind>/<product>/<yyyy>-<mm>-<dd>/<prefix>-<fileName>';
    expect(archiveKey(template, { ...parts, kind: 'clientData', fileDate: '2027-01-05' })).toBe(
      'archive/clientData/12345678901/2027-01-05/pulse-12345678901_cust_2026-11-19.zip',
    );
    expect(archiveKey('<yyyy>/<yyyy>/<fileName>', parts)).toBe('2026/2026/12345678901_cust_2026-11-19.zip');
  });

  it('folds duplicate slashes and trims the prefix, so an empty prefix leaves no leading slash', () => {
    const key = `12345678901/customEvents/2026/11/${parts.fileName}`;
    expect(archiveKey(DEFAULT_KEY_TEMPLATE, { ...parts, prefix: '' })).toBe(key);
    expect(archiveKey(DEFAULT_KEY_TEMPLATE, { ...parts, prefix: '/' })).toBe(key);
    expect(archiveKey(DEFAULT_KEY_TEMPLATE, { ...parts, prefix: 'org/pulse/' })).toBe(`org/pulse/${key}`);
    expect(archiveKey('<prefix>//<product>///<fileName>', parts)).toBe(`pulse/12345678901/${parts.fileName}`);
  });

  it.each<[string, string, Partial<KeyParts>, RegExp]>([
    ['an unknown placeholder', '<prefix>/<month>/<fileName>', {}, /unknown placeholder <month>/],
    ['a misspelt placeholder', '<prefix>/<FileName>', {}, /unknown placeholder <FileName>/],
    ['a template starting with /', '/<prefix>/<fileName>', {}, /starts with "\/"/],
    ['a ".." from a value', DEFAULT_KEY_TEMPLATE, { fileName: '..' }, /"\." or "\.\." segment/],
    ['a ".." prefix', DEFAULT_KEY_TEMPLATE, { prefix: '../other-bucket' }, /"\." or "\.\." segment/],
    ['a "." segment', '<prefix>/./<fileName>', {}, /"\." or "\.\." segment/],
    ['a control character', DEFAULT_KEY_TEMPLATE, { prefix: 'pul\nse' }, /control character/],
    ['a value that is a path from the root', '<product>/<fileName>', { product: '/etc' }, /starts with "\/"/],
    ['a trailing slash', DEFAULT_KEY_TEMPLATE, { fileName: 'dir/' }, /ends with "\/"/],
    ['a backslash', DEFAULT_KEY_TEMPLATE, { fileName: 'a\\b.zip' }, /backslash/],
    ['an over-long key', DEFAULT_KEY_TEMPLATE, { prefix: 'p'.repeat(1000) }, /longer than 1024 bytes/],
    ['an impossible date', DEFAULT_KEY_TEMPLATE, { fileDate: '2026-02-30' }, /not a YYYY-MM-DD calendar date/],
    ['a date that is no date', DEFAULT_KEY_TEMPLATE, { fileDate: '../..' }, /not a YYYY-MM-DD calendar date/],
  ])('refuses %s', (_label, template, change, message) => {
    expect(() => archiveKey(template, { ...parts, ...change })).toThrow(ArchiveKeyError);
    expect(() => archiveKey(template, { ...parts, ...change })).toThrow(message);
  });
});
