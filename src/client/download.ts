/** Downloads from signed storage URLs (api-shapes §1.10). */
import type { ResolvedOptions } from './options.ts';

export interface Download {
  /** The body; errors while reading (a truncated body) surface as DownloadError. */
  stream: ReadableStream<Uint8Array>;
  /** `Content-Length` announced by storage, when present. */
  contentLength: number | undefined;
  contentType: string | undefined;
}

export async function downloadFile(_opts: ResolvedOptions, _url: string, _signal?: AbortSignal): Promise<Download> {
  throw new Error('not implemented yet');
}
