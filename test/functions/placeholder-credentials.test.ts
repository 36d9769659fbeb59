/**
 * Every function handler, invoked as Lambda does (config from the environment, the AWS adapters), with the stack's
 * secret still holding its placeholder credentials (Secrets Manager stubbed: it has no local peer): the run stops
 * before any request reaches the service (the emulator behind a connection-counting proxy), logs one line naming
 * the secret and the command that sets it, and prints the job's JobFailed metric.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Emulator } from '../../emulator/index.ts';
import { handler as archiveCopy } from '../../functions/archive-copy/handler.ts';
import { handler as archive } from '../../functions/archive-plan/handler.ts';
import { handler as digest } from '../../functions/digest/handler.ts';
import { handler as licenseAlerts } from '../../functions/license-alerts/handler.ts';
import { handler as licenseReport } from '../../functions/license-report/handler.ts';
import { handler as licenseSync } from '../../functions/license-sync/handler.ts';
import { handler as usageAlerts } from '../../functions/usage-alerts/handler.ts';
import { PLACEHOLDER_USER_NAME, secretJsonProvider } from '../../src/adapters/aws/secrets.ts';
import { ConsoleLogger } from '../../src/adapters/console-logger.ts';
import { reportingClientFor } from '../../src/app/service-client.ts';
import { parseConfig } from '../../src/config/load.ts';
import { type BundledConfigFile, writeBundledConfig } from '../helpers/bundled-config-file.ts';
import { type CountingProxy, startCountingProxy } from '../helpers/counting-proxy.ts';
import { rawConfigFor } from '../helpers/emulator-config.ts';
import { startTestEmulator } from '../helpers/emulator-session.ts';

const SECRET_ARN = 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:pulse/reporting-AbCdEf';
const GENERATED_PASSWORD = 'generated-by-cloudformation-0123456789';
const sm = mockClient(SecretsManagerClient);
let emu: Emulator;
let proxy: CountingProxy;
let rawConfig: Record<string, unknown>;
let configFile: BundledConfigFile | undefined;
const saved = { ...process.env };

beforeAll(async () => {
  emu = await startTestEmulator();
  proxy = await startCountingProxy(emu.baseUrl);
  const base = rawConfigFor(emu);
  rawConfig = {
    ...base,
    service: {
      ...(base.service as object),
      baseUrl: proxy.url,
      credentials: { source: 'secretsManager', secretId: SECRET_ARN },
    },
    archive: { bucket: 'pulse-archive', prefix: 'pulse' },
    state: { tableName: 'pulse-state' },
    digests: [
      {
        id: 'exec-weekly',
        productIds: [emu.products[0]!.productId],
        recipients: [{ address: 'ceo@example.com', timeZone: 'UTC' }],
        schedule: { day: 'monday', time: '00:00', timeZone: 'UTC' },
        owner: 'owner@example.com',
      },
    ],
    licenses: { owner: { address: 'ops@example.com', timeZone: 'UTC' } },
    usageAlerts: {
      rules: [
        {
          id: 'active-drop',
          productIds: [emu.products[0]!.productId],
          metric: { kind: 'clients', status: 'active' },
          period: { unit: 'day' },
          condition: { kind: 'change', percent: 25 },
          owner: 'owner@example.com',
          recipients: [{ address: 'ops@example.com' }],
        },
      ],
    },
  };
  configFile = await writeBundledConfig(rawConfig);
  Object.assign(process.env, {
    PULSE_CONFIG_FILE: configFile.path,
    PULSE_ARCHIVE_BUCKET: 'pulse-archive',
    PULSE_STATE_TABLE: 'pulse-state',
    PULSE_COPY_QUEUE_URL: 'https://sqs.eu-central-1.amazonaws.com/123456789012/copy',
    AWS_REGION: 'eu-central-1',
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    LOG_LEVEL: 'info',
  });
});
afterAll(async () => {
  process.env = saved;
  await configFile?.remove();
  await proxy?.close();
  await emu?.close();
});

let stdout: string;
let stderr: string;
beforeEach(() => {
  stdout = '';
  stderr = '';
  sm.on(GetSecretValueCommand, { SecretId: SECRET_ARN }).resolves({
    SecretString: JSON.stringify({ userName: PLACEHOLDER_USER_NAME, password: GENERATED_PASSWORD }),
  });
  vi.spyOn(process.stdout, 'write').mockImplementation((t) => {
    stdout += String(t);
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation((t) => {
    stderr += String(t);
    return true;
  });
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  sm.reset();
});

const metricLines = () =>
  stdout
    .split('\n')
    .filter((l) => l.includes('"CloudWatchMetrics"'))
    .map((l) => JSON.parse(l) as { job: string; JobFailed: number });
const logLines = () =>
  (stdout + stderr)
    .split('\n')
    .filter((l) => l.startsWith('{') && !l.includes('"CloudWatchMetrics"'))
    .map((l) => JSON.parse(l) as { level: string; message: string });

const scheduled = { detail: {} };
const sqsBatch = {
  Records: [
    { messageId: 'm-1', body: '{}' },
    { messageId: 'm-2', body: '{}' },
  ],
};
const upload = {
  Records: [{ s3: { bucket: { name: 'pulse-archive' }, object: { key: 'pulse/license-sync/incoming/1/keys.csv' } } }],
};

describe('placeholder credentials in the stack secret', () => {
  const cases: [string, string, () => Promise<unknown>][] = [
    ['digest', 'digest', () => digest(scheduled)],
    ['license-alerts', 'license-alerts', () => licenseAlerts(scheduled)],
    ['license-report', 'license-report', () => licenseReport(scheduled)],
    ['usage-alerts', 'usage-alerts', () => usageAlerts(scheduled)],
    ['license-sync', 'licenses-sync', () => licenseSync(upload)],
    ['archive-plan', 'archive', () => archive(scheduled)],
    ['archive-copy', 'archive', () => archiveCopy(sqsBatch)],
  ];

  it.each(cases)('%s: refused before any call to the service, one log line and JobFailed', async (fn, job, run) => {
    const before = proxy.connections;
    const returned = await run();

    expect(proxy.connections - before).toBe(0);
    expect(sm.commandCalls(GetSecretValueCommand)).toHaveLength(1);
    const errors = logLines().filter((l) => l.level === 'ERROR');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toBe(
      `the Reporting Service credentials in secret ${SECRET_ARN} are still the placeholder: set them with ` +
        `\`aws secretsmanager put-secret-value --secret-id ${SECRET_ARN} --secret-string file://credentials.json\` ` +
        '(JSON {"userName", "password"}; docs/operations.md)',
    );
    expect(metricLines()).toEqual([expect.objectContaining({ job, JobFailed: 1 })]);
    expect(stdout + stderr).not.toContain(GENERATED_PASSWORD);
    if (fn === 'archive-copy')
      // The batch is handed back: copied once the secret is set, or dead-lettered and redriven.
      expect(returned).toEqual({ batchItemFailures: [{ itemIdentifier: 'm-1' }, { itemIdentifier: 'm-2' }] });
    else {
      const result = (Array.isArray(returned) ? returned[0] : returned) as { ok: boolean; errors: string[] };
      expect(result).toMatchObject({ job, ok: false, errors: [errors[0]!.message] });
    }
  });

  it('log lines are Powertools JSON with the invocation context: request id, cold start only on the first', async () => {
    const context = (awsRequestId: string) => ({
      functionName: 'pulse-digest',
      functionVersion: '$LATEST',
      invokedFunctionArn: 'arn:aws:lambda:eu-central-1:123456789012:function:pulse-digest',
      memoryLimitInMB: '512',
      awsRequestId,
    });
    vi.resetModules(); // a fresh container: its modules, its ports, its cold start
    vi.stubEnv('AWS_LAMBDA_INITIALIZATION_TYPE', 'on-demand'); // as Lambda sets it; Powertools reads it for cold_start
    const { handler } = await import('../../functions/digest/handler.ts');
    await handler(scheduled, context('req-1'));
    await handler(scheduled, context('req-2'));
    const errors = logLines().filter((l) => l.level === 'ERROR');
    expect(errors).toEqual([
      expect.objectContaining({ service: 'pulse', cold_start: true, function_request_id: 'req-1', job: 'digest' }),
      expect.objectContaining({ service: 'pulse', cold_start: false, function_request_id: 'req-2', job: 'digest' }),
    ]);
    // The container's ports: one Secrets Manager read per run, the same client.
    expect(sm.commandCalls(GetSecretValueCommand)).toHaveLength(2);
    expect(stdout + stderr).not.toContain(GENERATED_PASSWORD);
  });

  it('real credentials in the same secret pass through to the sign-in (through the same proxy)', async () => {
    sm.on(GetSecretValueCommand, { SecretId: SECRET_ARN }).resolves({ SecretString: JSON.stringify(emu.credentials) });
    const logger = new ConsoleLogger({ service: 'test', level: 'error', write: () => undefined });
    const service = parseConfig(rawConfig).service;
    const client = reportingClientFor(service, secretJsonProvider(new SecretsManagerClient({}), SECRET_ARN), logger);
    const before = proxy.connections;
    await client.withSession(async () => undefined);
    expect(proxy.connections).toBeGreaterThan(before);
  });
});
