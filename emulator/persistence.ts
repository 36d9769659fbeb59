/**
 * Persists license registry changes under `--data-dir` so inserted and updated keys survive a restart.
 * The whole registry of a product is written atomically (temp file + rename) after every change; on start, saved
 * records overwrite generated ones by key and unknown keys are appended, so a changed seed cannot corrupt indexes.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LicenseKeyRecord, ProductData } from './data/model.ts';

const fileOf = (dir: string, pd: ProductData) => join(dir, `license-registry-${pd.product.productId}.json`);

export function saveRegistryChanges(dir: string, pd: ProductData): void {
  mkdirSync(dir, { recursive: true });
  const file = fileOf(dir, pd);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify({ version: 1, records: pd.registry.records }));
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
  for (const rec of saved.records) {
    const k = pd.registry.index.get(rec.licenseKey);
    if (k !== undefined) pd.registry.records[k] = rec;
    else {
      pd.registry.index.set(rec.licenseKey, pd.registry.records.length);
      pd.registry.records.push(rec);
    }
  }
}
