/** The CSV cell writer for files people open in spreadsheets: quoted always, formulas neutralised. */
import { describe, expect, it } from 'vitest';
import { csvCell, csvLine } from '../../../src/jobs/licenses/csv-cells.ts';

describe('csvLine', () => {
  it('quotes every cell, doubles quotes and keeps commas and line breaks inside the cell', () => {
    expect(csvLine(['a', 'b,c', 'say "hi"', 'two\nlines', null, 42])).toBe(
      '"a","b,c","say ""hi""","two\nlines","","42"\r\n',
    );
  });

  it('neutralises cells a spreadsheet would run as a formula: = + - @ tab CR', () => {
    for (const start of ['=', '+', '-', '@', '\t', '\r'])
      expect(csvCell(`${start}HYPERLINK("http://x")`)).toBe(`"'${start}HYPERLINK(""http://x"")"`);
    expect(csvCell('=1+1')).toBe(`"'=1+1"`);
    // Only the start decides; text that merely contains the characters stays as it is.
    expect(csvCell('a=b-c@d')).toBe('"a=b-c@d"');
    expect(csvCell(-5)).toBe('"-5"');
  });
});
