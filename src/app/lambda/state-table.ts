/**
 * The DynamoDB state table's adapters (delivery ledger, suppression list, archive run records, usage alert states)
 * over the container's one document client. The ledger is new per invocation: its claim token names one run's claims
 * (src/ports/ledger.ts), and a run must never settle a claim an earlier run in the same container left behind.
 */
import { DynamoDbArchiveRuns } from '../../adapters/aws/dynamodb-archive-runs.ts';
import { DynamoDbLedger, dynamoDocumentClientFor } from '../../adapters/aws/dynamodb-ledger.ts';
import { DynamoDbSuppressionList } from '../../adapters/aws/dynamodb-suppressions.ts';
import { DynamoDbUsageAlertStates } from '../../adapters/aws/dynamodb-usage-alert-states.ts';
import { ConfigError } from '../../config/load.ts';
import type { PulseConfig } from '../../config/schema.ts';
import { perContainer } from './per-container.ts';

type Env = Record<string, string | undefined>;

export function stateTableOf(config: PulseConfig): string {
  if (!config.state) throw new ConfigError('state.tableName: required in AWS (or PULSE_STATE_TABLE)');
  return config.state.tableName;
}

const documentClient = (config: PulseConfig, env: Env) =>
  perContainer(config, env, 'dynamodb', () => dynamoDocumentClientFor({}));

/** A ledger for this invocation's run (cheap: the client is the container's). */
export function ledgerFor(config: PulseConfig, env: Env): DynamoDbLedger {
  return new DynamoDbLedger({ client: documentClient(config, env), tableName: stateTableOf(config) });
}

/** The suppression list every mailing function reads before it claims (and the mail-events function writes). */
export function suppressionsFor(config: PulseConfig, env: Env): DynamoDbSuppressionList {
  return perContainer(
    config,
    env,
    'suppressions',
    () => new DynamoDbSuppressionList({ client: documentClient(config, env), tableName: stateTableOf(config) }),
  );
}

export function archiveRunsFor(config: PulseConfig, env: Env): DynamoDbArchiveRuns {
  return perContainer(
    config,
    env,
    'archive-runs',
    () => new DynamoDbArchiveRuns({ client: documentClient(config, env), tableName: stateTableOf(config) }),
  );
}

/** The usage alerts' series states: the container's, as the adapter keeps nothing of a run (unlike the ledger). */
export function usageAlertStatesFor(config: PulseConfig, env: Env): DynamoDbUsageAlertStates {
  return perContainer(
    config,
    env,
    'usage-alert-states',
    () => new DynamoDbUsageAlertStates({ client: documentClient(config, env), tableName: stateTableOf(config) }),
  );
}
