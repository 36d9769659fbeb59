/**
 * The stack's credentials secret set up at deploy time (src/adapters/aws/stack-secret.ts, functions/secret-setup):
 * against a Secrets Manager peer on 127.0.0.1 (an AWS-JSON stub keeping secrets in memory, as Secrets Manager
 * answers) and, for the handler, a local server standing in for CloudFormation's pre-signed response URL. A stack
 * created again after a destroy adopts its secret; someone else's secret is refused with a message that says what to
 * do; a deletion leaves the secret.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CustomResourceEvent } from '../../src/adapters/aws/cfn-response.ts';
import { PLACEHOLDER_USER_NAME } from '../../src/adapters/aws/secrets.ts';
import { ensureStackSecret, STACK_TAG, StackSecretTakenError } from '../../src/adapters/aws/stack-secret.ts';
import { type AwsJsonStub, startAwsJsonStub } from '../helpers/aws-json-stub.ts';
import { type SecretStore, secretLifecycleOperations } from '../helpers/secrets-manager-peer.ts';

const secrets: SecretStore = new Map();

let stub: AwsJsonStub;
let client: SecretsManagerClient;
let cloudFormation: Server;
let responseUrl: string;
const answers: Record<string, unknown>[] = [];

beforeAll(async () => {
  stub = await startAwsJsonStub(secretLifecycleOperations(secrets, 'eu-central-1'));
  client = new SecretsManagerClient({
    region: 'eu-central-1',
    endpoint: stub.url,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  cloudFormation = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      answers.push({ method: req.method, ...JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => cloudFormation.listen(0, '127.0.0.1', resolve));
  responseUrl = `http://127.0.0.1:${(cloudFormation.address() as { port: number }).port}/response?X-Amz-Signature=abc`;
});
afterAll(async () => {
  client.destroy();
  await stub.close();
  await new Promise((resolve) => cloudFormation.close(resolve));
});
beforeEach(() => {
  secrets.clear();
  answers.length = 0;
});

const request = { name: 'pulse/reporting-service', stackName: 'Pulse', description: 'Pulse: credentials' };

describe('ensureStackSecret', () => {
  it('creates a missing secret with placeholder credentials, tagged as the stack’s', async () => {
    const created = await ensureStackSecret(client, request);
    expect(created.outcome).toBe('created');
    const stored = secrets.get('pulse/reporting-service')!;
    expect(created.arn).toBe(stored.arn);
    const value = JSON.parse(stored.value);
    expect(value.userName).toBe(PLACEHOLDER_USER_NAME);
    expect(value.password).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(stored.tags).toEqual([{ Key: STACK_TAG, Value: 'Pulse' }]);
  });

  it('adopts the secret the same stack left behind, keeping the credentials an operator put there', async () => {
    const first = await ensureStackSecret(client, request);
    secrets.get(request.name)!.value = JSON.stringify({ userName: 'real', password: 'operator-set' });
    const again = await ensureStackSecret(client, request);
    expect(again).toEqual({ arn: first.arn, name: request.name, outcome: 'adopted' });
    expect(JSON.parse(secrets.get(request.name)!.value).userName).toBe('real');
  });

  it("adopts the secret an earlier version of the stack held as a resource (CloudFormation's tag), tagging it", async () => {
    await ensureStackSecret(client, { ...request, stackName: 'Other' });
    secrets.get(request.name)!.tags = [{ Key: 'aws:cloudformation:stack-name', Value: 'Pulse' }];
    expect((await ensureStackSecret(client, request)).outcome).toBe('adopted');
    expect(secrets.get(request.name)!.tags).toContainEqual({ Key: STACK_TAG, Value: 'Pulse' });
  });

  it('restores its own secret that was scheduled for deletion', async () => {
    await ensureStackSecret(client, request);
    secrets.get(request.name)!.deletedDate = 1_790_000_000;
    expect((await ensureStackSecret(client, request)).outcome).toBe('restored');
    expect(secrets.get(request.name)!.deletedDate).toBeUndefined();
  });

  it("refuses another stack's secret, or one no Pulse stack made, saying how to go on", async () => {
    await ensureStackSecret(client, { ...request, stackName: 'Pulse-eu' });
    await expect(ensureStackSecret(client, request)).rejects.toThrow(StackSecretTakenError);
    await expect(ensureStackSecret(client, request)).rejects.toThrow(
      'The secret "pulse/reporting-service" already exists and belongs to the stack "Pulse-eu", not to "Pulse"',
    );
    secrets.get(request.name)!.tags = [];
    await expect(ensureStackSecret(client, request)).rejects.toThrow(
      /was not created by a Pulse stack.*deploy\.secretName.*aws secretsmanager tag-resource --secret-id "pulse\/reporting-service" --tags Key=pulse:stack,Value=Pulse/,
    );
    // Nothing was changed on the way: the value and tags are as they were.
    expect(secrets.get(request.name)!.tags).toEqual([]);
  });
});

describe('the secret-setup handler (the custom resource)', () => {
  const event = (type: CustomResourceEvent['RequestType'], physical?: string): CustomResourceEvent => ({
    RequestType: type,
    ResponseURL: responseUrl,
    StackId: 'arn:aws:cloudformation:eu-central-1:123456789012:stack/Pulse/1',
    RequestId: randomUUID(),
    LogicalResourceId: 'ReportingServiceCredentials',
    ...(physical ? { PhysicalResourceId: physical } : {}),
    ResourceProperties: { SecretName: request.name, StackName: 'Pulse', Description: request.description },
  });
  const handlerWithPeer = async () => {
    process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER = stub.url;
    process.env.AWS_REGION = 'eu-central-1';
    process.env.AWS_ACCESS_KEY_ID = 'test';
    process.env.AWS_SECRET_ACCESS_KEY = 'test';
    return (await import('../../functions/secret-setup/handler.ts')).handler;
  };

  it('answers CloudFormation with the ARN on Create, and leaves the secret on Delete', async () => {
    const handler = await handlerWithPeer();
    await handler(event('Create'));
    const arn = secrets.get(request.name)!.arn;
    expect(answers[0]).toMatchObject({
      method: 'PUT',
      Status: 'SUCCESS',
      PhysicalResourceId: arn,
      LogicalResourceId: 'ReportingServiceCredentials',
      Data: { Arn: arn, Name: request.name, Outcome: 'created' },
    });
    await handler(event('Delete', arn));
    expect(answers[1]).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: arn });
    expect(secrets.has(request.name)).toBe(true);
  });

  it('fails the deploy with the message, not "already exists", when the name is taken', async () => {
    await ensureStackSecret(client, { ...request, stackName: 'Someone-else' });
    const handler = await handlerWithPeer();
    await handler(event('Create'));
    expect(answers[0]).toMatchObject({ Status: 'FAILED', PhysicalResourceId: 'ReportingServiceCredentials' });
    expect(answers[0]!.Reason).toMatch(/^StackSecretTakenError: The secret "pulse\/reporting-service" already exists/);
    expect(JSON.stringify(answers[0])).not.toContain('ResourceExistsException');
  });
});
