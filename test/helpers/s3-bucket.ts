/**
 * A bucket on a real s3rver on 127.0.0.1 in a temporary folder, with a client and an S3ArchiveStore over it: the
 * setup of every test that needs S3 and nothing else of the local peers.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { S3ArchiveStore, type S3ArchiveStoreOptions, s3ClientFor } from '../../src/adapters/aws/s3-archive-store.ts';
import { ensureBucket, startS3rver } from '../../src/adapters/local/peer-servers.ts';

export interface TestBucket {
  bucket: string;
  /** s3rver's base URL: `${endpoint}/${bucket}/key` serves an object. */
  endpoint: string;
  client: S3Client;
  store: S3ArchiveStore;
  /** Stops the peer and removes its folder. */
  close(): Promise<void>;
}

type StoreOptions = Omit<S3ArchiveStoreOptions, 'client' | 'bucket'>;

/** `storeOptions` may depend on the peer's endpoint (a `publicBaseUrl` of its bucket URL). */
export async function startTestBucket(
  bucket: string,
  storeOptions: StoreOptions | ((endpoint: string) => StoreOptions) = {},
): Promise<TestBucket> {
  const dir = await mkdtemp(join(tmpdir(), `${bucket}-`));
  const peer = await startS3rver({ directory: dir });
  const client = s3ClientFor({ endpoint: peer.endpoint });
  await ensureBucket(client, bucket);
  return {
    bucket,
    endpoint: peer.endpoint,
    client,
    store: new S3ArchiveStore({
      client,
      bucket,
      ...(typeof storeOptions === 'function' ? storeOptions(peer.endpoint) : storeOptions),
    }),
    close: async () => {
      client.destroy();
      await peer.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
