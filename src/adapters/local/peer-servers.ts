/**
 * The local DynamoDB and S3 peers (dynalite, s3rver) on 127.0.0.1:0, and the idempotent set-up of the state table
 * and the archive bucket on them. Used by startLocalPeers and by the adapter tests.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CreateTableCommand, DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, HeadBucketCommand, type S3Client } from '@aws-sdk/client-s3';
import dynalite from 'dynalite';
import S3rver from 's3rver';

const HOST = '127.0.0.1';

export interface RunningPeer {
  endpoint: string;
  close(): Promise<void>;
}

/** dynalite; persisted in LevelDB under `path`, in memory without it. */
export async function startDynalite(opts: { path?: string } = {}): Promise<RunningPeer> {
  const server = dynalite({ ...(opts.path ? { path: opts.path } : {}), createTableMs: 0 });
  const port = await listen(server);
  return { endpoint: `http://${HOST}:${port}`, close: () => closeServer(server) };
}

/** s3rver storing buckets under `directory`. */
export async function startS3rver(opts: { directory: string }): Promise<RunningPeer> {
  const s3rver = new S3rver({ address: HOST, port: 0, directory: opts.directory, silent: true });
  const { port } = await s3rver.run();
  return { endpoint: `http://${HOST}:${port}`, close: () => s3rver.close() };
}

function listen(server: Server): Promise<number> {
  return new Promise((resolvePort, reject) => {
    server.once('error', reject);
    server.listen(0, HOST, () => {
      server.off('error', reject);
      resolvePort((server.address() as AddressInfo).port);
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((done, fail) => server.close((e) => (e ? fail(e) : done())));
}

export async function ensureTable(db: DynamoDBClient, tableName: string): Promise<void> {
  const status = async () =>
    (await db.send(new DescribeTableCommand({ TableName: tableName })).catch(notFoundAs(undefined)))?.Table
      ?.TableStatus;
  if ((await status()) === undefined) {
    // The key schema of the state table in lib/stacks/pulse-stack.ts.
    await db.send(
      new CreateTableCommand({
        TableName: tableName,
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
  }
  for (let i = 0; i < 100 && (await status()) !== 'ACTIVE'; i++) await new Promise((r) => setTimeout(r, 20));
}

export async function ensureBucket(s3: S3Client, bucket: string): Promise<void> {
  const exists = await s3.send(new HeadBucketCommand({ Bucket: bucket })).then(() => true, notFoundAs(false));
  if (!exists) await s3.send(new CreateBucketCommand({ Bucket: bucket }));
}

const notFoundAs =
  <T>(value: T) =>
  (e: unknown): T => {
    const status = (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    if (status === 404 || (e as Error).name === 'ResourceNotFoundException') return value;
    throw e;
  };
