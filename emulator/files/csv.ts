// RFC 4180 CSV as used by the export files (docs/interface.md "File listings and names"): UTF-8 without BOM, CRLF row
// ends, a cell is quoted only when it must be.

const CELL_NEEDS_QUOTES = /[",\r\n]/;

export class CsvParseError extends Error {
  override name = 'CsvParseError';
  readonly line: number;

  constructor(message: string, line: number) {
    super(`${message} (line ${line})`);
    this.line = line;
  }
}

function csvCell(cell: string): string {
  return CELL_NEEDS_QUOTES.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell;
}

/** One CSV record including its CRLF terminator. */
export function csvRow(cells: readonly string[]): string {
  if (cells.length === 0) throw new RangeError('a CSV row needs at least one cell');
  // A lone empty cell would print as a blank line, which readers skip or misread; quoting keeps it a record.
  if (cells.length === 1 && cells[0] === '') return '""\r\n';
  return cells.map(csvCell).join(',') + '\r\n';
}

export function csvDocument(header: readonly string[], rows: Iterable<readonly string[]>): string {
  let text = csvRow(header);
  for (const row of rows) text += csvRow(row);
  return text;
}

/**
 * Strict about quoting (a stray or unterminated quote throws), lenient about line ends:
 * accepts CRLF or LF, ignores a leading BOM and a final line end. Rows may differ in length.
 */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let line = 1;
  let i = text.startsWith('\uFEFF') ? 1 : 0;
  // True right after a row ends, so a final line end does not create an empty record.
  let atRowStart = true;

  const endCell = (): void => {
    row.push(cell);
    cell = '';
  };
  const endRow = (): void => {
    endCell();
    rows.push(row);
    row = [];
    line++;
    atRowStart = true;
  };

  while (i < text.length) {
    atRowStart = false;
    if (text[i] === '"') {
      if (cell !== '') throw new CsvParseError('quote inside an unquoted cell', line);
      i++;
      for (;;) {
        const close = text.indexOf('"', i);
        if (close === -1) throw new CsvParseError('unterminated quoted cell', line);
        const chunk = text.slice(i, close);
        line += chunk.split('\n').length - 1;
        cell += chunk;
        if (text[close + 1] === '"') {
          cell += '"';
          i = close + 2;
          continue;
        }
        i = close + 1;
        break;
      }
      const next = text[i];
      if (next !== undefined && next !== ',' && next !== '\r' && next !== '\n') {
        throw new CsvParseError('unexpected character after a closing quote', line);
      }
      continue;
    }
    const ch = text[i];
    if (ch === ',') {
      endCell();
      i++;
    } else if (ch === '\n') {
      endRow();
      i++;
    } else if (ch === '\r') {
      if (text[i + 1] !== '\n') throw new CsvParseError('bare CR outside a quoted cell', line);
      endRow();
      i += 2;
    } else {
      cell += ch;
      i++;
    }
  }
  if (!atRowStart) endRow();
  return rows;
}
