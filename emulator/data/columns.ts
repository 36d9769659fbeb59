/** Small builders for the typed columns of model.ts. */
import type { BooleanColumn, NumberColumn, StringColumn } from './model.ts';

export class StringColumnBuilder {
  readonly dict: string[] = [];
  private readonly codeOf = new Map<string, number>();
  readonly codes: Uint16Array | Uint32Array;

  constructor(n: number, wide = false) {
    this.codes = wide ? new Uint32Array(n) : new Uint16Array(n);
  }

  set(i: number, value: string | null): void {
    if (value === null) return;
    let code = this.codeOf.get(value);
    if (code === undefined) {
      this.dict.push(value);
      code = this.dict.length;
      this.codeOf.set(value, code);
    }
    this.codes[i] = code;
  }

  build(): StringColumn {
    return { kind: 'string', dict: this.dict, codes: this.codes };
  }
}

export function numberColumn(n: number): NumberColumn {
  return { kind: 'number', values: new Float64Array(n).fill(Number.NaN) };
}

export function booleanColumn(n: number): BooleanColumn {
  return { kind: 'boolean', values: new Uint8Array(n).fill(2) };
}
