/**
 * The license sync's result file: one CSV line per input row, in input order — `line,licenseKey,result,detail` —
 * with every cell quoted and neutralised against formulas (csv-cells.ts), since keys and service messages are not
 * Pulse's text. Written to any Writable (a file locally, a stream into S3 in AWS), waiting for it to drain.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { csvRow } from '../shared/csv-cells.ts';

/** Every cell quoted: the detail column is free text (service messages, changed fields). */
const QUOTE_ALL = { quoteAll: true };

import type { SyncRowResult } from './run-sync.ts';

export const RESULT_COLUMNS = ['line', 'licenseKey', 'result', 'detail'];

/** `keys.csv` → `keys.result.csv` (a name without `.csv` gets the suffix as it is). */
export const resultNameOf = (name: string): string => `${name.replace(/\.csv$/i, '')}.result.csv`;

export interface ResultWriter {
  write(rows: SyncRowResult[]): Promise<void>;
  /** Ends the stream and resolves once everything is flushed. */
  end(): Promise<void>;
}

export function resultWriter(out: Writable): ResultWriter {
  let pending = csvRow(RESULT_COLUMNS, QUOTE_ALL);
  const flush = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  return {
    async write(rows) {
      let text = pending;
      pending = '';
      for (const r of rows) text += csvRow([r.line, r.key, r.outcome, r.detail], QUOTE_ALL);
      await flush(text);
    },
    async end() {
      if (pending) await flush(pending);
      pending = '';
      const done = once(out, 'finish');
      out.end();
      await done;
    },
  };
}
