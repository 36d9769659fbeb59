/**
 * S3ArchiveStore faults a peer cannot produce, with aws-sdk-client-mock: a failing part upload, a part upload that
 * stalls (to see the source is not read ahead), and S3's 412 answer to a conditional write.
 */
import { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { S3ArchiveStore } from '../../src/adapters/aws/s3-archive-store.ts';
import { ObjectExistsError } from '../../src/ports/archive-store.ts';
import { chunked, MiB, patternBytes, sha256 } from './byte-streams.ts';

const BUCKET = 'pulse-archive-test';

describe('S3ArchiveStore faults a peer cannot produce (mocked S3)', () => {
  it('aborts the multipart upload when a part upload fails, and never completes it', async () => {
    const mock = mockClient(S3Client);
    mock.on(CreateMultipartUploadCommand).resolves({ UploadId: 'upload-1' });
    mock.on(UploadPartCommand, { PartNumber: 1 }).resolves({ ETag: '"p1"' });
    mock.on(UploadPartCommand, { PartNumber: 2 }).rejects(new Error('part 2 failed'));
    mock.on(AbortMultipartUploadCommand).resolves({});
    const mocked = new S3ArchiveStore({ client: new S3Client({}), bucket: BUCKET, partSize: 5 * MiB, queueSize: 1 });
    await expect(mocked.put('k', chunked(patternBytes(16 * MiB, 3)), { contentType: 'x' })).rejects.toThrow(
      'part 2 failed',
    );
    expect(mock.commandCalls(AbortMultipartUploadCommand).map((c) => c.args[0].input)).toEqual([
      { Bucket: BUCKET, Key: 'k', UploadId: 'upload-1' },
    ]);
    expect(mock.commandCalls(CompleteMultipartUploadCommand)).toHaveLength(0);
    mock.restore();
  });

  it('reads the source no faster than parts are uploaded (memory stays bounded)', async () => {
    const mock = mockClient(S3Client);
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    mock.on(CreateMultipartUploadCommand).resolves({ UploadId: 'upload-2' });
    mock.on(UploadPartCommand).callsFake(async (input: { PartNumber: number }) => {
      await gate;
      return { ETag: `"p${input.PartNumber}"` };
    });
    mock.on(CompleteMultipartUploadCommand).resolves({});
    const total = 40 * MiB;
    let pulled = 0;
    const source = new Readable({
      read() {
        if (pulled >= total) return this.push(null);
        pulled += MiB;
        this.push(Buffer.alloc(MiB, pulled / MiB));
      },
    });
    const mocked = new S3ArchiveStore({ client: new S3Client({}), bucket: BUCKET, partSize: 5 * MiB, queueSize: 2 });
    const upload = mocked.put('big', source, { contentType: 'x' });
    await expect.poll(() => mock.commandCalls(UploadPartCommand).length).toBe(2);
    await new Promise((r) => setTimeout(r, 50));
    // Two 5 MiB parts in flight, a third being filled, plus the stream's own buffer: nowhere near 40 MiB.
    expect(pulled).toBeLessThanOrEqual(3 * 5 * MiB + 2 * MiB);
    release();
    expect((await upload).size).toBe(total);
    expect(mock.commandCalls(UploadPartCommand)).toHaveLength(Math.ceil(40 / 5));
    mock.restore();
  });

  it('maps 412 to ObjectExistsError and sends If-None-Match: * without a HEAD first', async () => {
    const mock = mockClient(S3Client);
    const precondition = new S3ServiceException({
      name: 'PreconditionFailed',
      $fault: 'client',
      $metadata: { httpStatusCode: 412 },
      message: 'At least one of the pre-conditions you specified did not hold',
    });
    mock.on(PutObjectCommand).rejects(precondition);
    const aws = new S3ArchiveStore({ client: new S3Client({}), bucket: BUCKET });
    await expect(aws.put('k', 'body', { contentType: 'text/plain', ifNoneMatch: true })).rejects.toBeInstanceOf(
      ObjectExistsError,
    );
    expect(mock.calls()).toHaveLength(1);
    expect(mock.commandCalls(PutObjectCommand)[0]!.args[0].input).toMatchObject({
      IfNoneMatch: '*',
      ChecksumSHA256: sha256(Buffer.from('body')),
    });
    mock.restore();
  });
});
