/**
 * A state table on a real dynalite on 127.0.0.1, with a document client over it: the setup of every test that needs
 * the DynamoDB adapters and nothing else of the local peers (like s3-bucket.ts for S3).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { dynamoDocumentClientFor } from '../../src/adapters/aws/dynamodb-ledger.ts';
import { ensureTable, startDynalite } from '../../src/adapters/local/peer-servers.ts';

export interface TestTable {
  tableName: string;
  endpoint: string;
  db: DynamoDBDocumentClient;
  /** Stops the peer (and its client). */
  close(): Promise<void>;
}

export async function startTestTable(tableName: string): Promise<TestTable> {
  const peer = await startDynalite();
  const db = dynamoDocumentClientFor({ endpoint: peer.endpoint });
  await ensureTable(db, tableName);
  return {
    tableName,
    endpoint: peer.endpoint,
    db,
    close: async () => {
      db.destroy();
      await peer.close();
    },
  };
}
