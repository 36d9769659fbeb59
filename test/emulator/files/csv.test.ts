import { describe, expect, it } from 'vitest';
import { CsvParseError, csvDocument, csvRow, parseCsv } from '../../../emulator/files/csv.ts';

describe('csvRow', () => {
  it('leaves plain cells bare and ends the row with CRLF', () => {
    expect(csvRow(['a', 'b c', '', 'Ünïcødé'])).toBe('a,b c,,Ünïcødé\r\n');
  });

  it('quotes cells with quotes, commas, CR or LF and doubles inner quotes', () => {
    expect(csvRow(['say "hi"', 'a,b', 'x\ry', 'x\ny'])).toBe('"say ""hi""","a,b","x\ry","x\ny"\r\n');
  });

  it('keeps a row with one empty cell from looking like a blank line', () => {
    expect(csvRow([''])).toBe('""\r\n');
  });

  it('refuses a row without cells', () => {
    expect(() => csvRow([])).toThrow(RangeError);
  });
});

describe('csvDocument', () => {
  it('writes the header then each row, no BOM', () => {
    const text = csvDocument(['timestamp', 'event.data'], [['2026-11-20T10:00:00', '1,2']]);
    expect(text).toBe('timestamp,event.data\r\n2026-11-20T10:00:00,"1,2"\r\n');
    expect(text.charCodeAt(0)).not.toBe(0xfeff);
  });
});

describe('parseCsv', () => {
  const tricky = [
    ['timestamp', 'clientId', 'event.data'],
    ['2026-11-20T10:00:00', 'c,1', 'He said "yes"'],
    ['multi\r\nline', 'lf\nonly', ''],
    ['Grüße 日本 🎉', '"', ',,'],
    [''],
    ['trailing space ', ' leading', '""'],
  ];

  it('round-trips commas, quotes, newlines, empty cells and unicode', () => {
    const [header = [], ...rows] = tricky;
    expect(parseCsv(csvDocument(header, rows))).toEqual(tricky);
  });

  it('accepts LF line ends, a BOM and a missing final line end', () => {
    expect(parseCsv('\uFEFFa,b\n1,"2\n3"\n4,5')).toEqual([
      ['a', 'b'],
      ['1', '2\n3'],
      ['4', '5'],
    ]);
  });

  it('returns no rows for empty input and keeps blank lines as one empty cell', () => {
    expect(parseCsv('')).toEqual([]);
    expect(parseCsv('a\r\n\r\nb\r\n')).toEqual([['a'], [''], ['b']]);
  });

  it.each([
    ['an unterminated quote', 'a,"bc\r\n'],
    ['a quote inside an unquoted cell', 'ab"c,d\r\n'],
    ['text after a closing quote', '"ab"c,d\r\n'],
    ['a bare CR', 'a\rb\r\n'],
  ])('rejects %s', (_what, text) => {
    expect(() => parseCsv(text)).toThrow(CsvParseError);
  });

  it('reports the line of the error, counting newlines inside quoted cells', () => {
    try {
      parseCsv('a\r\n"x\r\ny"\r\nbad"\r\n');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(CsvParseError);
      expect((error as CsvParseError).line).toBe(4);
    }
  });
});
