/**
 * `pulse doctor`'s lines for the suppression list in the state table: one warning per address Pulse no longer
 * mails (a hard bounce or a complaint, src/mail-events/) saying since when, why, after which delivery and the
 * command that clears it; one passed line when there is none. Skipped when the table is not configured or its own
 * check failed.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoDbSuppressionList } from '../adapters/aws/dynamodb-suppressions.ts';
import { clearSuppressionCommand, type Suppression } from '../ports/suppressions.ts';
import { type CheckResult, fail, ok, skip, warn } from './check-result.ts';

const NAME = 'suppressed addresses';

export async function* suppressionChecks(
  table: string | undefined,
  tableCheck: CheckResult,
  dynamodb: () => DynamoDBClient,
): AsyncGenerator<CheckResult> {
  if (table === undefined) {
    yield skip(NAME, 'not configured (no "state" section)');
    return;
  }
  if (tableCheck.status === 'fail') {
    yield skip(NAME, 'not checked: the state table failed its check');
    return;
  }
  let entries: Suppression[];
  try {
    entries = await new DynamoDbSuppressionList({
      client: DynamoDBDocumentClient.from(dynamodb()),
      tableName: table,
    }).list();
  } catch (e) {
    yield fail(NAME, `Query of ${table}`, e);
    return;
  }
  if (entries.length === 0) {
    yield ok(NAME, 'none: every recipient is mailed');
    return;
  }
  for (const s of entries) {
    const why = s.reason === 'bounce' ? 'a hard bounce' : 'a complaint';
    yield warn(
      `suppressed ${s.address}`,
      `not mailed since ${s.since}, after ${why} of ${s.deliveryKey} (${s.detail}); clear it with \`${clearSuppressionCommand(s.address)}\``,
    );
  }
}
