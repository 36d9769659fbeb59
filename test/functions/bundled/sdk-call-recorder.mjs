// Preload (`node --import`) for a bundled-handler container (lambda-runner.mjs): records every AWS SDK command the
// handler sends, so the tests can ask IAM whether the stack allows each one (test/iam/). It wraps `send` of the one
// smithy `Client` class every @aws-sdk/client-* (and lib-dynamodb's document client) extends: the bundles leave the
// SDK external and resolve it from the project's node_modules (a link in cdk.out), and Node resolves that link to the
// same file this preload loads, so the patched class is theirs (bundled-handlers.test.ts checks the single copy).
//
// One JSON line per command, appended to $PULSE_SDK_CALLS_FILE before the request goes out (a refused request needs
// the permission as much as an accepted one): the client's service, the command, the region, the Lambda function,
// and only the input fields that identify what is touched — never a body, a secret value or a message's content.
// $PULSE_SDK_CALLS_KEY_ATTRIBUTES names the state table's key attributes, the only ones kept of a put item.
import { appendFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const file = process.env.PULSE_SDK_CALLS_FILE;
if (!file) throw new Error('sdk-call-recorder: PULSE_SDK_CALLS_FILE is not set');
const keyAttributes = (process.env.PULSE_SDK_CALLS_KEY_ATTRIBUTES ?? '').split(',').filter((a) => a !== '');

const { Client } = createRequire(import.meta.url)('@smithy/core/client');

/** Copied as they are: names of buckets, keys, versions, tables, secrets, queues, senders. */
const KEPT = [
  'Bucket',
  'Key',
  'VersionId',
  'Prefix',
  'TableName',
  'SecretId',
  // CreateSecret's: the secret's name (never its value).
  'Name',
  'QueueUrl',
  'FromEmailAddress',
  'FromEmailAddressIdentityArn',
  'ConfigurationSetName',
];
/** Only whether they are there: they change the request, not what it names. */
const PRESENCE = ['UploadId', 'PartNumber', 'IfNoneMatch', 'ChecksumAlgorithm', 'Tags'];

/** The placeholders (`:pk`, `#pk`) a key condition uses, with their values or names: the partition key it reads. */
function keyCondition(input) {
  const expression = input.KeyConditionExpression;
  if (typeof expression !== 'string') return {};
  const usedIn = (map) =>
    Object.fromEntries(
      Object.entries(map ?? {}).filter(([placeholder]) =>
        new RegExp(`${placeholder.replace(/[^\w]/g, '\\$&')}(?!\\w)`).test(expression),
      ),
    );
  return {
    KeyConditionExpression: expression,
    ExpressionAttributeValues: usedIn(input.ExpressionAttributeValues),
    ExpressionAttributeNames: usedIn(input.ExpressionAttributeNames),
  };
}

function identifying(input) {
  const out = {};
  for (const field of KEPT) if (input[field] !== undefined) out[field] = input[field];
  for (const field of PRESENCE) if (input[field] !== undefined) out[field] = true;
  if (input.Item && typeof input.Item === 'object')
    out.ItemKey = Object.fromEntries(keyAttributes.filter((a) => a in input.Item).map((a) => [a, input.Item[a]]));
  Object.assign(out, keyCondition(input));
  if (Array.isArray(input.EmailTags)) out.EmailTagNames = input.EmailTags.map((t) => t.Name);
  if (Array.isArray(input.Entries)) out.Entries = input.Entries.length;
  return out;
}

const original = Client.prototype.send;
Client.prototype.send = function send(command, optionsOrCb, cb) {
  const call = {
    lambda: process.env.AWS_LAMBDA_FUNCTION_NAME,
    service: this.config?.serviceId ?? this.constructor.name,
    client: this.constructor.name,
    command: command.constructor.name,
    input: identifying(command.input ?? {}),
  };
  const region = this.config?.region;
  const sent = Promise.resolve(typeof region === 'function' ? region() : region).then((resolved) => {
    appendFileSync(file, `${JSON.stringify({ ...call, region: resolved })}\n`);
    return original.call(this, command, optionsOrCb, cb);
  });
  if (typeof optionsOrCb === 'function' || typeof cb === 'function') {
    sent.catch((e) => (typeof optionsOrCb === 'function' ? optionsOrCb : cb)(e));
    return undefined;
  }
  return sent;
};
