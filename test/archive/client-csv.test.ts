/**
 * The client export CSV → NDJSON conversion on its own: values typed as clientPropertyList sends them, RFC 4180 quoting
 * in every shape, the same output however the bytes are split into chunks, and a named error (with its line) for
 * everything malformed. Over the real emulator: test/archive/client-data.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { ClientCsvError, ClientCsvToNdjson, type ColumnKind, MAX_ROW_CHARS } from '../../src/archive/client-csv.ts';

const KINDS: Record<string, ColumnKind> = {
  ram: 'number',
  'licenseStatus.blocked': 'boolean',
  lifetimeEventUsage: 'list',
};
const PROPERTIES = ['prodVersion', 'geography.country', 'ram', 'licenseStatus.blocked', 'lifetimeEventUsage'];
const HEADER = `clientId,${PROPERTIES.join(',')}\r\n`;

function converter(properties = PROPERTIES): ClientCsvToNdjson {
  return new ClientCsvToNdjson({ properties, kindOf: (name) => KINDS[name] ?? 'string' });
}

/** The NDJSON of `csv` fed in chunks of the given sizes (the rest in one), and the row count. */
function convert(csv: string | Uint8Array, chunkSizes: number[] = [], properties = PROPERTIES) {
  const bytes = typeof csv === 'string' ? Buffer.from(csv) : csv;
  const c = converter(properties);
  const parts: Buffer[] = [];
  let at = 0;
  for (const n of chunkSizes) {
    parts.push(c.push(bytes.subarray(at, at + n)));
    at += n;
  }
  parts.push(c.push(bytes.subarray(at)), c.end());
  return { ndjson: Buffer.concat(parts).toString('utf8'), rows: c.rows };
}

const objects = (ndjson: string) =>
  ndjson
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** The error `csv` fails with. */
function failure(csv: string | Uint8Array, properties = PROPERTIES): ClientCsvError {
  try {
    convert(csv, [], properties);
  } catch (e) {
    expect(e).toBeInstanceOf(ClientCsvError);
    return e as ClientCsvError;
  }
  throw new Error('expected a ClientCsvError');
}

describe('values', () => {
  it('types each column as clientPropertyList does and keeps <NULL> as the string "<NULL>" in every column', () => {
    const csv =
      HEADER +
      '1F3A9C07B2D4E658,3.1,US,8192,false,"[{""eventCategory"":""File"",""eventName"":""Open"",""eventCount"":42}]"\r\n' +
      '0B14C0FFEE000001,<NULL>,<NULL>,<NULL>,<NULL>,<NULL>\r\n' +
      '0B14C0FFEE000002,10,DE,-1.5e3,true,[]\r\n';
    const { ndjson, rows } = convert(csv);
    expect(rows).toBe(3);
    expect(ndjson.split('\n')[0]).toBe(
      '{"clientId":"1F3A9C07B2D4E658","prodVersion":"3.1","geography.country":"US","ram":8192,' +
        '"licenseStatus.blocked":false,"lifetimeEventUsage":[{"eventCategory":"File","eventName":"Open","eventCount":42}]}',
    );
    expect(objects(ndjson).slice(1)).toEqual([
      {
        clientId: '0B14C0FFEE000001',
        prodVersion: '<NULL>',
        'geography.country': '<NULL>',
        ram: '<NULL>',
        'licenseStatus.blocked': '<NULL>',
        lifetimeEventUsage: '<NULL>',
      },
      {
        clientId: '0B14C0FFEE000002',
        prodVersion: '10',
        'geography.country': 'DE',
        ram: -1500,
        'licenseStatus.blocked': true,
        lifetimeEventUsage: [],
      },
    ]);
    // A number is copied as the service wrote it.
    expect(ndjson).toContain('"ram":-1.5e3');
  });

  it('reads quotes, commas and line breaks inside quoted cells, and leaves HTML and JSON-like text as strings', () => {
    const tricky = [
      'a,"b"',
      'two\r\nlines',
      'lf\nonly',
      '<script>alert("x")</script>',
      '{"not":"parsed"}',
      '',
      ' spaced ',
      'tab\there',
    ];
    const cell = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);
    const csv = HEADER + tricky.map((v, i) => `C${i},${cell(v)},${cell(v)},1,true,[]\r\n`).join('');
    const got = objects(convert(csv).ndjson);
    expect(got.map((o) => o.prodVersion)).toEqual(tricky);
    expect(got.map((o) => o['geography.country'])).toEqual(tricky);
  });

  it('keeps non-ASCII text, and a quoted "<NULL>" is the sentinel too', () => {
    const csv = `${HEADER}Ü1,"Zürich ✓ 😀","<NULL>",1,true,[]\r\n`;
    expect(objects(convert(csv).ndjson)).toEqual([
      {
        clientId: 'Ü1',
        prodVersion: 'Zürich ✓ 😀',
        'geography.country': '<NULL>',
        ram: 1,
        'licenseStatus.blocked': true,
        lifetimeEventUsage: [],
      },
    ]);
  });

  it('writes list values on one line even when the CSV spreads their JSON over several', () => {
    const csv = `${HEADER}C1,1,DE,1,true,"[\r\n  {""eventName"": ""Open""}\r\n]"\r\nC2,1,DE,1,true,[]\r\n`;
    const { ndjson, rows } = convert(csv);
    expect(rows).toBe(2);
    expect(ndjson.split('\n')).toHaveLength(3);
    expect(objects(ndjson)[0]!.lifetimeEventUsage).toEqual([{ eventName: 'Open' }]);
  });

  it('accepts the columns in another order than requested; members follow the header', () => {
    const csv = 'clientId,ram,prodVersion\r\nC1,4,x\r\n';
    expect(convert(csv, [], ['prodVersion', 'ram']).ndjson).toBe('{"clientId":"C1","ram":4,"prodVersion":"x"}\n');
  });
});

describe('line ends and chunks', () => {
  const csv =
    HEADER +
    'C1,"a,""b""\r\nc",Zürich 😀,1,true,"[{""eventName"":""x""}]"\r\n' +
    'C2,<NULL>,"",2,false,[]\r\n' +
    'C3,"""",x,3,true,[]\r\n';
  const whole = convert(csv).ndjson;

  it('gives the same NDJSON wherever the bytes are split (inside quotes, CRLF and multi-byte characters)', () => {
    const bytes = Buffer.from(csv);
    for (let cut = 1; cut < bytes.length; cut++) expect(convert(bytes, [cut]).ndjson).toBe(whole);
    expect(
      convert(
        bytes,
        Array.from({ length: bytes.length }, () => 1),
      ).ndjson,
    ).toBe(whole);
  });

  it('accepts LF line ends, a leading BOM and a last row without a line end', () => {
    expect(convert(csv.replaceAll(',true,[]\r\n', ',true,[]\n')).ndjson).toBe(whole);
    expect(convert(`\uFEFF${csv}`).ndjson).toBe(whole);
    expect(convert(csv.slice(0, -2)).ndjson).toBe(whole);
  });

  it('converts a CSV with the header only to nothing', () => {
    expect(convert(HEADER)).toEqual({ ndjson: '', rows: 0 });
  });
});

describe('malformed CSV', () => {
  const row = 'C1,1,DE,1,true,[]\r\n';

  it.each([
    ['a quote inside an unquoted cell', `${HEADER}${row}C2,1"x,DE,1,true,[]\r\n`, 3, /quote inside an unquoted cell/],
    ['a character after a closing quote', `${HEADER}C2,"1"x,DE,1,true,[]\r\n`, 2, /after a closing quote/],
    ['an unterminated quoted cell', `${HEADER}${row}C2,"1,DE,1,true,[]\r\n`, 3, /unterminated quoted cell/],
    ['a bare CR', `${HEADER}C2,1\r2,DE,1,true,[]\r\n`, 2, /CR inside an unquoted cell/],
    ['too few cells', `${HEADER}${row}${row}C3,1,DE,1,true\r\n`, 4, /must have 6 cells/],
    ['too many cells', `${HEADER}C3,1,DE,1,true,[],x\r\n`, 2, /must have 6 cells/],
    ['too many cells after a quoted one', `${HEADER}C3,"1",DE,1,true,[],x\r\n`, 2, /must have 6 cells/],
    ['an empty line', `${HEADER}\r\n${row}`, 2, /must have 6 cells/],
    ['a number that is not one', `${HEADER}C2,1,DE,8 GB,true,[]\r\n`, 2, /ram: "8 GB" is not a number value/],
    ['a boolean that is not one', `${HEADER}C2,1,DE,1,yes,[]\r\n`, 2, /licenseStatus.blocked: "yes" is not a boolean/],
    ['a list that is not JSON', `${HEADER}C2,1,DE,1,true,[oops\r\n`, 2, /lifetimeEventUsage: "\[oops" is not a list/],
    ['a list that is not a list', `${HEADER}C2,1,DE,1,true,"{}"\r\n`, 2, /is not a list value/],
    ['no header', '', 1, /no header row/],
  ])('fails on %s, naming the line', (_what, csv, line, message) => {
    const e = failure(csv);
    expect(e.message).toMatch(message);
    expect(e.line).toBe(line);
  });

  it('counts the lines of quoted line breaks when naming a later line', () => {
    expect(failure(`${HEADER}C1,"a\r\nb",DE,1,true,[]\r\nC2,x,DE,zero,true,[]\r\n`).line).toBe(4);
  });

  it('fails on invalid UTF-8', () => {
    const bytes = Buffer.concat([
      Buffer.from(`${HEADER}C1,`),
      Buffer.from([0xc3, 0x28]),
      Buffer.from(',DE,1,true,[]\r\n'),
    ]);
    expect(failure(bytes).message).toMatch(/not valid UTF-8/);
  });

  it.each([
    ['a missing column', 'clientId,prodVersion,ram\r\n', /"geography.country" is missing/],
    ['a column not requested', `clientId,${PROPERTIES.join(',')},extra\r\n`, /"extra" was not requested/],
    ['a column twice', `clientId,${PROPERTIES.join(',')},ram\r\n`, /"ram" appears twice/],
    ['clientId not first', `${PROPERTIES.join(',')},clientId\r\n`, /first column is "prodVersion"/],
  ])('fails on a header with %s', (_what, header, message) => {
    expect(failure(header).message).toMatch(message);
  });

  it('fails on a row that never ends instead of holding the rest of the export', () => {
    const c = converter();
    c.push(Buffer.from(`${HEADER}C1,"`));
    const chunk = Buffer.alloc(64 * 1024, 'x');
    expect(() => {
      for (let n = 0; n <= MAX_ROW_CHARS / chunk.length; n++) c.push(chunk);
    }).toThrow(/a row longer than/);
  });
});
