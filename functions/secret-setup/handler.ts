/**
 * Deploy-time custom resource of the Reporting Service credentials secret (lib/constructs/reporting-service-secret.ts):
 * creates the secret, adopts the one this stack left behind, or refuses someone else's with a message that says what
 * to do (src/adapters/aws/stack-secret.ts). Deleting the stack leaves the secret. Always answers CloudFormation.
 */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { type CustomResourceEvent, type CustomResourceOutcome, respond } from '../../src/adapters/aws/cfn-response.ts';
import { ensureStackSecret } from '../../src/adapters/aws/stack-secret.ts';

const secretsManager = new SecretsManagerClient({});

export const handler = async (event: CustomResourceEvent): Promise<CustomResourceOutcome> => {
  const props = event.ResourceProperties as { SecretName: string; StackName: string; Description: string };
  let outcome: CustomResourceOutcome;
  try {
    outcome =
      event.RequestType === 'Delete'
        ? { ok: true, physicalResourceId: event.PhysicalResourceId ?? '', data: {} }
        : await ensureStackSecret(secretsManager, {
            name: props.SecretName,
            stackName: props.StackName,
            description: props.Description,
          }).then((s) => ({
            ok: true,
            physicalResourceId: s.arn,
            data: { Arn: s.arn, Name: s.name, Outcome: s.outcome },
          }));
  } catch (e) {
    outcome = { ok: false, reason: `${(e as Error).name}: ${(e as Error).message}` };
  }
  console.log(JSON.stringify({ level: 'INFO', message: 'secret setup', requestType: event.RequestType, outcome }));
  await respond(event, outcome);
  return outcome;
};
