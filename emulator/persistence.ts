/**
 * Persists license registry changes under `--data-dir` so inserted and updated keys survive a restart.
 * The changed records of a product (every record an upsert touched since generation, in id order) are written
 * atomically (temp file + rename) after every change: the generated keys can be made again from the seed, so a
 * registry of millions of keys costs only its changes. On start, saved records overwrite generated ones by key and
 * unknown keys are appended, so a changed seed cannot corrupt indexes.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BULK_BASE, findKey, recordOf } from './data/license-bulk.ts';
import type { LicenseKeyRecord, ProductData } from './data/model.ts';

const fileOf = (dir: string, pd: ProductData) => join(dir, `license-registry-${pd.product.productId}.json`);

export function saveRegistryChanges(dir: string, pd: ProductData): void {
  mkdirSync(dir, { recursive: true });
  const file = fileOf(dir, pd);
  const tmp = `${file}.${process.pid}.tmp`;
  const reg = pd.registry;
  const records = [...reg.changed].sort((a, b) => a - b).map((k) => recordOf(reg, k));
  writeFileSync(tmp, JSON.stringify({ version: 1, records }));
  renameSync(tmp, file);
}

export function loadRegistryChanges(dir: string, pd: ProductData): void {
  let text: string;
  try {
    text = readFileSync(fileOf(dir, pd), 'utf8');
  } catch {
    return;
  }
  const saved = JSON.parse(text) as { version: number; records: LicenseKeyRecord[] };
  const reg = pd.registry;
  for (const rec of saved.records) {
    let k = findKey(reg, rec.licenseKey);
    if (k === undefined) {
      k = reg.records.length;
      reg.index.set(rec.licenseKey, k);
      reg.records.push(rec);
    } else if (k >= BULK_BASE) reg.bulk.overrides.set(k, rec);
    else reg.records[k] = rec;
    reg.changed.add(k);
  }
}
