/**
 * S3 answers HEAD or GET of a missing key with 403 AccessDenied, not 404, to a caller that may not list the whole
 * bucket, which is every Pulse function (their ListBucket is limited to their prefixes). s3rver always answers 404,
 * so a proxy in front of it answers as S3 would to such a caller: 403 for a missing key, and 403 for a listing outside
 * the allowed prefixes. The store must still tell a missing key (undefined) from a refused one (the error).
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import { ListObjectsCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3ArchiveStore, s3ClientFor } from '../../src/adapters/aws/s3-archive-store.ts';
import { startTestBucket, type TestBucket } from '../helpers/s3-bucket.ts';

const BUCKET = 'pulse-forbidden-test';
/** What the caller may list (its `s3:prefix` condition) and read. */
const ALLOWED = 'pulse/12345678901/';
const DENIED_XML =
  '<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>';

let bucket: TestBucket;
let proxy: Server;
let store: S3ArchiveStore;
const listings: string[] = [];

/** Forwards to s3rver; turns its 404 for an object into 403, refuses listings and reads outside ALLOWED. */
function startForbiddingProxy(target: URL): Promise<string> {
  proxy = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://proxy');
    const key = decodeURIComponent(url.pathname.slice(`/${BUCKET}/`.length));
    const listing = url.pathname === `/${BUCKET}` || url.pathname === `/${BUCKET}/`;
    if (listing) listings.push(url.searchParams.get('prefix') ?? '');
    const refused = listing ? !(url.searchParams.get('prefix') ?? '').startsWith(ALLOWED) : !key.startsWith(ALLOWED);
    if (refused) {
      res.writeHead(403, { 'Content-Type': 'application/xml' }).end(req.method === 'HEAD' ? undefined : DENIED_XML);
      return;
    }
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        if (answer.statusCode === 404 && !listing) {
          answer.resume();
          res.writeHead(403, { 'Content-Type': 'application/xml' }).end(req.method === 'HEAD' ? undefined : DENIED_XML);
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(upstream);
  });
  return new Promise((resolve) =>
    proxy.listen(0, '127.0.0.1', () => {
      const { port } = proxy.address() as { port: number };
      resolve(`http://127.0.0.1:${port}`);
    }),
  );
}

beforeAll(async () => {
  bucket = await startTestBucket(BUCKET);
  const endpoint = await startForbiddingProxy(new URL(bucket.endpoint));
  store = new S3ArchiveStore({ client: s3ClientFor({ endpoint }), bucket: BUCKET });
  await bucket.client.send(
    new PutObjectCommand({ Bucket: BUCKET, Key: `${ALLOWED}present.zip`, Body: 'bytes', Metadata: { size: '5' } }),
  );
  await bucket.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${ALLOWED}present.zip.sha256`, Body: 'x' }));
});
afterAll(async () => {
  await new Promise((resolve) => proxy.close(resolve));
  await bucket.close();
});

describe('a missing key answered with 403', () => {
  it('head, get and read of a missing key are undefined, told by listing that key', async () => {
    listings.length = 0;
    expect(await store.head(`${ALLOWED}missing.zip`)).toBeUndefined();
    expect(await store.get(`${ALLOWED}missing.zip`)).toBeUndefined();
    expect(await store.read(`${ALLOWED}missing.zip`)).toBeUndefined();
    expect(listings).toEqual([`${ALLOWED}missing.zip`, `${ALLOWED}missing.zip`, `${ALLOWED}missing.zip`]);
  });

  it('a present key is read as before, without a listing', async () => {
    listings.length = 0;
    expect(await store.head(`${ALLOWED}present.zip`)).toMatchObject({ size: 5, metadata: { size: '5' } });
    expect(Buffer.from((await store.get(`${ALLOWED}present.zip`))!).toString()).toBe('bytes');
    expect(listings).toEqual([]);
  });

  it('a missing key whose longer sibling exists is still missing (the listing names keys, not prefixes)', async () => {
    expect(await store.head(`${ALLOWED}present`)).toBeUndefined();
  });

  it('a key the caller may not read stays an error: AccessDenied, not "missing"', async () => {
    await expect(store.head('pulse/license-sync/incoming/k.csv')).rejects.toMatchObject({
      $metadata: { httpStatusCode: 403 },
    });
    await expect(store.get('pulse/digests/x/index.html')).rejects.toMatchObject({ name: 'AccessDenied' });
  });

  it('the proxy refuses what S3 would (so the cases above are real): a listing outside the allowed prefix', async () => {
    const client = s3ClientFor({ endpoint: `http://127.0.0.1:${(proxy.address() as { port: number }).port}` });
    await expect(client.send(new ListObjectsCommand({ Bucket: BUCKET, Prefix: 'pulse/' }))).rejects.toMatchObject({
      name: 'AccessDenied',
    });
    client.destroy();
  });
});
