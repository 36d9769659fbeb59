/** The shared CSV cell writer (formula neutralization + RFC 4180) and the snapshot's record reader, round trip. */
import { describe, expect, it } from 'vitest';
import { CsvRecordError, csvRecords } from '../../src/licenses/report/csv-records.ts';
import { csvCell, csvRow, neutralizedCellValue } from '../../src/licenses/shared/csv-cells.ts';

/** `text` as UTF-8 bytes in chunks of `chunk` bytes (cutting through characters, as a stream may). */
async function read(text: string, chunk = 3): Promise<string[][]> {
  const bytes = Buffer.from(text);
  async function* chunks() {
    for (let i = 0; i < bytes.length; i += chunk) yield bytes.subarray(i, i + chunk);
  }
  const rows: string[][] = [];
  for await (const r of csvRecords(chunks())) rows.push(r);
  return rows;
}

describe('csvCell', () => {
  it.each([
    ['=HYPERLINK("http://x","y")', `"'=HYPERLINK(""http://x"",""y"")"`],
    ['+1', "'+1"],
    ['-2+3', "'-2+3"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\tcmd', "'\tcmd"],
    ['\rcmd', `"'\rcmd"`],
    ["'quoted", "''quoted"],
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
    ['line\nbreak', '"line\nbreak"'],
    ['say "hi"', '"say ""hi"""'],
    ['', ''],
  ])('%j → %s', (value, cell) => {
    expect(csvCell(value)).toBe(cell);
  });

  it('writes numbers, booleans and null as they are (a negative number is a number, not a formula)', () => {
    expect(csvRow([-5, true, null, undefined, 0])).toBe('-5,true,,,0\r\n');
  });

  it('with quoteAll quotes every cell, numbers and empty ones too, and still neutralizes formulas', () => {
    expect(csvRow([2, 'a', null, '=1+1', 'say "hi"'], { quoteAll: true })).toBe(`"2","a","","'=1+1","say ""hi"""\r\n`);
  });

  it('neutralization is undone exactly', () => {
    for (const v of ['=1', "'=1", "''", 'x', '-', "'"]) {
      expect(neutralizedCellValue(csvCell(v).replace(/^"|"$/g, '').replaceAll('""', '"'))).toBe(v);
    }
  });
});

describe('csvRecords', () => {
  it('reads back what csvRow writes, whatever the chunking', async () => {
    const rows = [
      ['licenseKey', 'licenseType'],
      ['=A1', 'a,"b"\r\nc'],
      ['', 'x'],
      ['ünïcode 🗝', '\r'],
    ];
    const text = rows.map((r) => csvRow(r)).join('');
    for (const chunk of [1, 2, 5, 1000]) {
      const back = (await read(text, chunk)).map((r) => r.map(neutralizedCellValue));
      expect(back).toEqual(rows);
    }
  });

  it('refuses an unterminated quote and a quote inside an unquoted cell, naming the line', async () => {
    await expect(read('k,v\r\na,"b\r\n')).rejects.toThrow(CsvRecordError);
    await expect(read('k,v\r\nx,y\r\na,b"c\r\n')).rejects.toThrow(/^line 3: /);
  });
});
