/**
 * The DynamoDB state table's adapters (delivery ledger, archive run records) over the container's one document
 * client. The ledger is new per invocation: its claim token names one run's claims (src/ports/ledger.ts), and a run
 * must never settle a claim an earlier run in the same container left behind.
 */
import { DynamoDbArchiveRuns } from '../../adapters/aws/dynamodb-archive-runs.ts';
import { DynamoDbLedger, dynamoDocumentClientFor } from '../../adapters/aws/dynamodb-ledger.ts';
import type { PulseConfig } from '../../config/schema.ts';
import { type Env, perContainer, stateTableOf } from './base.ts';

const documentClient = (config: PulseConfig, env: Env) =>
  perContainer(config, env, 'dynamodb', () => dynamoDocumentClientFor({}));

/** A ledger for this invocation's run (cheap: the client is the container's). */
export function ledgerFor(config: PulseConfig, env: Env): DynamoDbLedger {
  return new DynamoDbLedger({ client: documentClient(config, env), tableName: stateTableOf(config) });
}

export function archiveRunsFor(config: PulseConfig, env: Env): DynamoDbArchiveRuns {
  return perContainer(
    config,
    env,
    'archive-runs',
    () => new DynamoDbArchiveRuns({ client: documentClient(config, env), tableName: stateTableOf(config) }),
  );
}
