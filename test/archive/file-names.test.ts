/**
 * File names from the service against the documented patterns (docs/interface.md "File listings and names"): every name
 * the emulator lists passes with its listed dates; hostile and foreign names are refused with a reason that quotes them
 * safely.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.ts';
import { checkFileName, type FileNameKind, quoteFileName } from '../../src/archive/file-names.ts';
import { ReportingClient } from '../../src/client/index.ts';
import { startTestEmulator } from '../helpers/emulator-session.ts';

const P = '12345678901';

describe('checkFileName accepts the documented names', () => {
  it.each([
    ['customEvents', `${P}_cust_2026-11-19.zip`, { fileDate: '2026-11-19' }],
    ['customEvents', `${P}_cust_2026-10-01_to_2026-10-31.zip`, { fileDate: '2026-10-01', stopDate: '2026-10-31' }],
    ['exceptions', `${P}_exc_2024-02-29.zip`, { fileDate: '2024-02-29' }],
    ['exceptions', `${P}_exc_2026-11-01_to_2026-11-19.zip`, { fileDate: '2026-11-01', stopDate: '2026-11-19' }],
    ['rawEvents', `${P}_2026-11-19.zip`, { fileDate: '2026-11-19' }],
  ] as const)('%s %s', (kind, name, dates) => {
    expect(checkFileName(P, kind, name)).toEqual({ ok: true, ...dates });
  });

  describe('every name the emulator lists', () => {
    let emu: Emulator;
    let client: ReportingClient;
    beforeAll(async () => {
      emu = await startTestEmulator();
      client = new ReportingClient({ baseUrl: emu.baseUrl, origin: emu.origin, credentials: emu.credentials });
    });
    afterAll(async () => {
      await client.logout();
      await emu.close();
    });

    it('passes, with the dates the listing gives', async () => {
      let checked = 0;
      for (const { productId, rawDataExport } of emu.products) {
        for (const kind of ['customEvents', 'exceptions'] as const) {
          const l = await (kind === 'customEvents' ? client.customEventsListFiles : client.exceptionsListFiles)(
            productId,
          );
          for (const f of [...l.dailyFiles, ...l.openDailyFiles]) {
            expect(checkFileName(productId, kind, f.fileName)).toEqual({ ok: true, fileDate: f.fileDate });
            checked++;
          }
          for (const f of l.monthlyFiles) {
            const expected = { ok: true, fileDate: f.fileStartDate, stopDate: f.fileStopDate };
            expect(checkFileName(productId, kind, f.fileName)).toEqual(expected);
            checked++;
          }
        }
        if (!rawDataExport) continue;
        for (const f of (await client.rawEventsListFiles(productId)).fileList) {
          expect(checkFileName(productId, 'rawEvents', f.fileName)).toEqual({ ok: true, fileDate: f.fileDate });
          checked++;
        }
      }
      expect(checked).toBeGreaterThan(300);
    });
  });
});

describe('checkFileName refuses everything else', () => {
  it.each<[string, FileNameKind, unknown, RegExp]>([
    ['a number', 'customEvents', 12345678901, /not a string \(number\)/],
    ['null', 'customEvents', null, /not a string \(null\)/],
    ['an object', 'exceptions', { fileName: 'x' }, /not a string \(object\)/],
    ['an empty name', 'customEvents', '', /is empty/],
    ['a parent directory', 'customEvents', `../${P}_cust_2026-11-19.zip`, /contains "\.\."/],
    ['dots inside', 'customEvents', `${P}_cust_2026-11-19..zip`, /contains "\.\."/],
    ['an absolute path', 'customEvents', `/etc/${P}_cust_2026-11-19.zip`, /is an absolute path/],
    ['a drive letter', 'rawEvents', `C:${P}_2026-11-19.zip`, /is an absolute path/],
    ['a sub-directory', 'customEvents', `x/${P}_cust_2026-11-19.zip`, /path separator/],
    ['a backslash', 'customEvents', `x\\${P}_cust_2026-11-19.zip`, /path separator/],
    ['a NUL', 'customEvents', `${P}_cust_2026-11-19.zip\u0000.exe`, /control character/],
    ['a newline', 'customEvents', `${P}_cust_2026-11-19.zip\n`, /control character/],
    ['a right-to-left override', 'customEvents', `${P}_cust_2026-11-19\u202epiz.exe`, /non-ASCII/],
    ['a non-ASCII digit', 'customEvents', `${P}_cust_2026-11-1٩.zip`, /non-ASCII/],
    ['an over-long name', 'customEvents', `${P}_cust_2026-11-19${'x'.repeat(250)}.zip`, /longer than 255/],
    ['another product', 'customEvents', '9876543210_cust_2026-11-19.zip', /belongs to product 9876543210, not/],
    ['an exceptions name', 'customEvents', `${P}_exc_2026-11-19.zip`, /is an exceptions file, not customEvents/],
    ['a custom events name', 'rawEvents', `${P}_cust_2026-11-19.zip`, /is a customEvents file, not rawEvents/],
    ['a raw events name', 'exceptions', `${P}_2026-11-19.zip`, /is a rawEvents file, not exceptions/],
    ['a monthly raw name', 'rawEvents', `${P}_2026-11-01_to_2026-11-19.zip`, /daily only/],
    ['February 30th', 'customEvents', `${P}_cust_2026-02-30.zip`, /impossible date 2026-02-30/],
    ['month 13', 'exceptions', `${P}_exc_2026-13-01_to_2026-13-31.zip`, /impossible date 2026-13-01/],
    ['a range backwards', 'customEvents', `${P}_cust_2026-11-19_to_2026-11-01.zip`, /ends \(2026-11-01\) before/],
    ['another extension', 'customEvents', `${P}_cust_2026-11-19.zip.exe`, /documented export file name patterns/],
    ['upper case', 'customEvents', `${P}_CUST_2026-11-19.ZIP`, /documented export file name patterns/],
    ['spaces', 'customEvents', ` ${P}_cust_2026-11-19.zip`, /documented export file name patterns/],
    ['a short date', 'customEvents', `${P}_cust_2026-1-19.zip`, /documented export file name patterns/],
  ])('%s', (_label, kind, name, reason) => {
    const result = checkFileName(P, kind, name);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(reason);
  });

  it('quotes names in reasons as printable ASCII, and not endlessly', () => {
    const nasty = `\u001b[31m${P}_cust_\u202e2026-11-19.zip${'A'.repeat(5000)}`;
    const result = checkFileName(P, 'customEvents', nasty);
    expect(result.ok).toBe(false);
    const reason = result.ok ? '' : result.reason;
    expect(reason).toMatch(/^[\x20-\x7e…]+$/);
    expect(reason).toContain('"\\u001b[31m');
    expect(reason.length).toBeLessThan(200);
    expect(quoteFileName('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(quoteFileName('ü')).toBe('"\\u00fc"');
    expect(quoteFileName('x'.repeat(100))).toBe(`"${'x'.repeat(80)}"… (100 characters)`);
  });
});
