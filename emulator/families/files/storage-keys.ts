/**
 * Maps a storage key (`<product_id>/<family>/<file name>`, as signed by the `…DownloadUrl` operations) to the bytes of
 * that export file. The key is checked as strictly as a download-URL request: the file must be listed right now, so a
 * key for an expired, foreign or made-up file, or for an open file being rebuilt, resolves to nothing (storage 404).
 */
import { dayOfMs } from '../../data/dates.ts';
import type { EmulatorState } from '../../state.ts';
import { findListed } from './catalog.ts';
import { familyById } from './families.ts';
import { fileBytes } from './file-bytes.ts';

export async function resolveStorageKey(state: EmulatorState, key: string): Promise<Uint8Array | undefined> {
  const parts = key.split('/');
  if (parts.length !== 3) return undefined;
  const [productId = '', familyId = '', fileName = ''] = parts;
  const pd = state.products.get(productId);
  const fam = familyById(familyId);
  if (!pd || !fam) return undefined;
  if (fam.id === 'rawEvents' && !pd.product.features.rawDataExport) return undefined;
  const now = state.clock.now();
  const file = findListed(pd, fam, fileName, dayOfMs(now), now);
  if (!file) return undefined;
  if (file.kind === 'open' && state.faults.openFilesUnavailable(key)) return undefined;
  return fileBytes(pd, file, now);
}
