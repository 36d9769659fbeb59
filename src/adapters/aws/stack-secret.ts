/**
 * The stack's Reporting Service credentials secret, set up at deploy time by a custom resource
 * (lib/constructs/reporting-service-secret.ts, functions/secret-setup) instead of an `AWS::SecretsManager::Secret`:
 * the secret outlives its stack (operators put real credentials in it), so a stack created again after a destroy,
 * or after a failed first create, finds its name taken, and CloudFormation would stop with "already exists".
 *
 * - No secret of that name: created, with placeholder credentials (the functions refuse them until an operator
 *   sets real ones: src/app/placeholder-guard.ts) and the tag `pulse:stack=<stack name>`.
 * - A secret this stack created before (tagged `pulse:stack=<stack>`, or CloudFormation's
 *   `aws:cloudformation:stack-name=<stack>` from the days the stack held it as a resource): adopted as it is, its
 *   credentials kept; restored first if it was scheduled for deletion.
 * - Any other secret of that name: refused (StackSecretTakenError), naming the secret, who it seems to belong to and
 *   the two ways out. Pulse never takes over a secret it did not create.
 * - The stack's deletion leaves the secret (the credentials are the operator's), as the RETAIN policy did.
 */
import { randomBytes } from 'node:crypto';
import {
  CreateSecretCommand,
  DescribeSecretCommand,
  type DescribeSecretCommandOutput,
  RestoreSecretCommand,
  type SecretsManagerClient,
  TagResourceCommand,
} from '@aws-sdk/client-secrets-manager';
import { PLACEHOLDER_USER_NAME } from './secrets.ts';

/** The tag that marks a secret as a Pulse stack's own. */
export const STACK_TAG = 'pulse:stack';
const CLOUDFORMATION_STACK_TAG = 'aws:cloudformation:stack-name';

export class StackSecretTakenError extends Error {
  override name = 'StackSecretTakenError';
}

export interface StackSecretRequest {
  /** The secret's name (`deploy.secretName`). */
  name: string;
  /** The stack's name (`deploy.stackName`). */
  stackName: string;
  description: string;
}

export interface StackSecret {
  arn: string;
  name: string;
  outcome: 'created' | 'adopted' | 'restored';
}

export async function ensureStackSecret(client: SecretsManagerClient, req: StackSecretRequest): Promise<StackSecret> {
  const found = await describe(client, req.name);
  if (found === undefined) {
    const created = await client.send(
      new CreateSecretCommand({
        Name: req.name,
        Description: req.description,
        // Never a real credential: the password only keeps the value from being guessable until it is replaced.
        SecretString: JSON.stringify({
          userName: PLACEHOLDER_USER_NAME,
          password: randomBytes(24).toString('base64url'),
        }),
        Tags: [{ Key: STACK_TAG, Value: req.stackName }],
      }),
    );
    return { arn: created.ARN!, name: req.name, outcome: 'created' };
  }
  const tags = new Map((found.Tags ?? []).map((t) => [t.Key, t.Value]));
  const ours = tags.get(STACK_TAG) === req.stackName || tags.get(CLOUDFORMATION_STACK_TAG) === req.stackName;
  if (!ours)
    throw new StackSecretTakenError(takenMessage(req, tags.get(STACK_TAG) ?? tags.get(CLOUDFORMATION_STACK_TAG)));
  const arn = found.ARN!;
  let outcome: StackSecret['outcome'] = 'adopted';
  if (found.DeletedDate !== undefined) {
    await client.send(new RestoreSecretCommand({ SecretId: arn }));
    outcome = 'restored';
  }
  if (tags.get(STACK_TAG) !== req.stackName)
    await client.send(new TagResourceCommand({ SecretId: arn, Tags: [{ Key: STACK_TAG, Value: req.stackName }] }));
  return { arn, name: req.name, outcome };
}

async function describe(client: SecretsManagerClient, name: string): Promise<DescribeSecretCommandOutput | undefined> {
  try {
    return await client.send(new DescribeSecretCommand({ SecretId: name }));
  } catch (e) {
    if ((e as Error).name === 'ResourceNotFoundException') return undefined;
    throw e;
  }
}

function takenMessage(req: StackSecretRequest, owner: string | undefined): string {
  const whose = owner === undefined ? 'was not created by a Pulse stack' : `belongs to the stack "${owner}"`;
  return (
    `The secret "${req.name}" already exists and ${whose}, not to "${req.stackName}"; Pulse does not take over a ` +
    'secret it did not create. Give this stack its own secret with deploy.secretName, or, if it is the ' +
    `credentials secret of an earlier Pulse stack of this name, mark it as this stack's: aws secretsmanager ` +
    `tag-resource --secret-id "${req.name}" --tags Key=${STACK_TAG},Value=${req.stackName}`
  );
}
