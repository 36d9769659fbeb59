/**
 * Secrets Manager's secret lifecycle as AWS-JSON stub operations (test/helpers/aws-json-stub.ts), over an in-memory
 * store: DescribeSecret, CreateSecret (refused for a taken name, as Secrets Manager refuses it), RestoreSecret and
 * TagResource, answering with the fields and errors the SDK reads. What the deploy-time secret setup
 * (src/adapters/aws/stack-secret.ts) calls; GetSecretValue stays aws-json-stub's `getSecretValue`.
 */
import { createHash } from 'node:crypto';
import type { StubOperation } from './aws-json-stub.ts';

export interface StoredSecret {
  arn: string;
  name: string;
  value: string;
  tags: { Key: string; Value: string }[];
  /** Epoch seconds: the secret is scheduled for deletion. */
  deletedDate?: number;
}

/** The store: secrets by name. */
export type SecretStore = Map<string, StoredSecret>;

export const secretArnOf = (name: string, region = 'us-east-1', account = '123456789012') =>
  `arn:aws:secretsmanager:${region}:${account}:secret:${name}-${createHash('sha256').update(name).digest('base64url').slice(0, 6)}`;

export function secretLifecycleOperations(store: SecretStore, region?: string): Record<string, StubOperation> {
  const find = (id: string) => store.get(id) ?? [...store.values()].find((s) => s.arn === id);
  const notFound = (id: string) => ({
    status: 400,
    type: 'ResourceNotFoundException',
    message: `Secrets Manager can't find the specified secret: ${id}`,
  });
  return {
    'secretsmanager.DescribeSecret': (input) => {
      const s = find(String(input.SecretId));
      if (!s) return notFound(String(input.SecretId));
      return {
        body: { ARN: s.arn, Name: s.name, Tags: s.tags, ...(s.deletedDate ? { DeletedDate: s.deletedDate } : {}) },
      };
    },
    'secretsmanager.CreateSecret': (input) => {
      const name = String(input.Name);
      if (store.has(name))
        return {
          status: 400,
          type: 'ResourceExistsException',
          message: `The operation failed because the secret ${name} already exists.`,
        };
      const arn = secretArnOf(name, region);
      store.set(name, {
        arn,
        name,
        value: String(input.SecretString),
        tags: (input.Tags as StoredSecret['tags']) ?? [],
      });
      return { body: { ARN: arn, Name: name } };
    },
    'secretsmanager.RestoreSecret': (input) => {
      const s = find(String(input.SecretId));
      if (!s) return notFound(String(input.SecretId));
      delete s.deletedDate;
      return { body: { ARN: s.arn, Name: s.name } };
    },
    'secretsmanager.TagResource': (input) => {
      const s = find(String(input.SecretId));
      if (!s) return notFound(String(input.SecretId));
      for (const tag of input.Tags as StoredSecret['tags']) s.tags = [...s.tags.filter((t) => t.Key !== tag.Key), tag];
      return { body: {} };
    },
  };
}
