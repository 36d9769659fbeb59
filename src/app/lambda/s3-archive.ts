/** The S3 archive store, for the runtimes whose jobs read or write the archive bucket. */
import { S3ArchiveStore, s3ClientFor } from '../../adapters/aws/s3-archive-store.ts';
import type { ArchiveConfig } from '../../config/schema.ts';

export function archiveStoreFor(archive: ArchiveConfig): S3ArchiveStore {
  return new S3ArchiveStore({
    client: s3ClientFor({}),
    bucket: archive.bucket,
    ...(archive.publicBaseUrl ? { publicBaseUrl: archive.publicBaseUrl } : {}),
  });
}
