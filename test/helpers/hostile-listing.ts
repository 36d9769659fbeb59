/** A fetch for the ReportingClient that plays a hostile service: extra daily files in the custom events listings. */
import type { FetchLike } from '../../src/client/index.ts';

/** Adds daily files with these names to every custom events listing the service answers. */
export function addingListedNames(names: string[]): FetchLike {
  return async (input, init) => {
    const res = await fetch(input, init);
    const url = input instanceof Request ? input.url : String(input);
    if (!url.includes('/v3/customEventTracking/listFiles/')) return res;
    const listing = (await res.json()) as { dailyFiles: unknown[] };
    for (const fileName of names)
      listing.dailyFiles.push({ fileName, fileDate: '2026-11-18', uncompressedSizeKB: 1, compressedSizeKB: 1 });
    const headers = new Headers(res.headers);
    headers.delete('content-length');
    return new Response(JSON.stringify(listing), { status: res.status, headers });
  };
}
