/**
 * The Pulse stack synthesized with real bundling (local esbuild) from the README's example production config,
 * adjusted to the local peers: the service is the emulator (behind a connection-counting proxy), the products are
 * the emulator's, mail goes to the SMTP sink, schedules are in UTC. Each function's handler is then run from its
 * asset (`cdk.out/asset.<hash>/index.mjs` + `pulse.config.json` + templates) in a child process, the way Lambda
 * runs it: the template's environment (CloudFormation references replaced by the local peers' names, `/var/task` by
 * the asset directory), its NODE_OPTIONS, the AWS SDK clients pointed at the peers by `AWS_ENDPOINT_URL_*`. Secrets
 * Manager and SQS have no local peer: small AWS-JSON-protocol stubs stand in (test/helpers/aws-json-stub.ts).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { PulseStack } from '../../../lib/stacks/pulse-stack.ts';
import { PLACEHOLDER_USER_NAME } from '../../../src/adapters/aws/secrets.ts';
import { type LocalPeers, startLocalPeers } from '../../../src/adapters/local/local-peers.ts';
import { parseConfig } from '../../../src/config/load.ts';
import { type AwsJsonStub, getSecretValue, sendMessageBatch, startAwsJsonStub } from '../../helpers/aws-json-stub.ts';
import { type CountingProxy, startCountingProxy } from '../../helpers/counting-proxy.ts';
import { PRODUCTION_EXAMPLE } from '../../infra/synth-pulse.ts';

const ROOT = new URL('../../..', import.meta.url).pathname;
const RUNNER = new URL('./lambda-runner.mjs', import.meta.url).pathname;
const REGION = 'us-east-1';
export const SECRET_ARN = `arn:aws:secretsmanager:${REGION}:123456789012:secret:pulse/reporting-service-AbCdEf`;
const QUEUE_PATH = '/123456789012/Pulse-ArchiveCopyQueue';
/** The service's own limit of sessions per user (api-shapes §1.1), so the session budget is tested against it. */
export const SERVICE_SESSION_LIMIT = 5;

export type FunctionName =
  | 'digest'
  | 'archive'
  | 'archive-copy'
  | 'archive-verify'
  | 'license-alerts'
  | 'license-report'
  | 'license-sync';

interface BundledFunction {
  assetDir: string;
  timeout: number;
  memory: number;
  environment: Record<string, string>;
}

export interface Invocation {
  /** One per event: what the handler returned, or what it threw (as Lambda reports it). */
  results: ({ result: unknown } | { errorType: string; errorMessage: string })[];
  stdout: string;
  stderr: string;
  /** The EMF metric lines the run printed. */
  metrics: Record<string, unknown>[];
  /** The JSON log lines (not metrics). */
  logs: { level: string; message: string; [k: string]: unknown }[];
}

export interface BundledPulse {
  peers: LocalPeers;
  proxy: CountingProxy;
  secretsManager: AwsJsonStub;
  sqs: AwsJsonStub;
  /** The stack secret's value as the stub answers it: set it to the placeholder for a test. */
  secrets: Map<string, string>;
  /** Messages the archive plan sent to the copy queue (SendMessageBatch), in order. */
  queued: { id: string; body: string }[];
  functions: Record<FunctionName, BundledFunction>;
  /** The first function's bundle dir, for checks on what the asset holds. */
  outdir: string;
  /** Runs `events` through one container of `fn` (one child process), in order. */
  invoke(fn: FunctionName, events: unknown[]): Promise<Invocation>;
  placeholderSecret(): string;
  realSecret(): string;
  close(): Promise<void>;
}

export async function startBundledPulse(): Promise<BundledPulse> {
  const workDir = mkdtempSync(join(tmpdir(), 'pulse-bundled-'));
  const peers = await startLocalPeers({
    workDir: join(workDir, 'peers'),
    emulator: { clients: 200, seed: 7, maxSessionsPerUser: SERVICE_SESSION_LIMIT },
  });
  const emu = peers.emulator;
  const proxy = await startCountingProxy(emu.baseUrl);
  const realSecret = () => JSON.stringify(emu.credentials);
  const placeholderSecret = () => JSON.stringify({ userName: PLACEHOLDER_USER_NAME, password: 'generated-0123456789' });
  const secrets = new Map([[SECRET_ARN, realSecret()]]);
  const secretsManager = await startAwsJsonStub({ 'secretsmanager.GetSecretValue': getSecretValue(secrets) });
  const queued: { id: string; body: string }[] = [];
  const sqs = await startAwsJsonStub({ 'AmazonSQS.SendMessageBatch': sendMessageBatch(queued) });

  const outdir = join(workDir, 'cdk.out');
  const functions = synthBundled(outdir, localConfig(peers, proxy));
  // The bundles leave the AWS SDK to the runtime (pulse-function.ts), as /var/runtime/node_modules holds it in
  // Lambda; here the project's node_modules stands in, found by Node's resolution from asset.<hash>/.
  symlinkSync(join(ROOT, 'node_modules'), join(outdir, 'node_modules'));

  const names: Record<string, string> = {
    PULSE_STATE_TABLE: peers.tableName,
    PULSE_ARCHIVE_BUCKET: peers.bucket,
    PULSE_SERVICE_SECRET_ARN: SECRET_ARN,
    PULSE_COPY_QUEUE_URL: `${sqs.url}${QUEUE_PATH}`,
  };
  const lambdaEnv = (name: FunctionName, fn: BundledFunction): Record<string, string> => {
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(fn.environment)) {
      if (typeof value === 'string') env[key] = value.replace(/^\/var\/task(?=\/|$)/, fn.assetDir);
      else if (names[key] !== undefined) env[key] = names[key];
      else throw new Error(`${name}: no local peer for the environment's reference ${key}=${JSON.stringify(value)}`);
    }
    return {
      // What Lambda's Node.js runtime sets.
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      TZ: 'UTC',
      LAMBDA_TASK_ROOT: fn.assetDir,
      // The bundle is unpacked here, not at /var/task: the file the functions read by default (bundled-config.ts).
      PULSE_CONFIG_FILE: join(fn.assetDir, 'pulse.config.json'),
      _HANDLER: 'index.handler',
      AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
      AWS_LAMBDA_FUNCTION_NAME: `Pulse-${name}`,
      AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memory),
      AWS_REGION: REGION,
      AWS_DEFAULT_REGION: REGION,
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      // The AWS services, pointed at the local peers and stubs.
      AWS_ENDPOINT_URL_S3: peers.s3Endpoint,
      AWS_ENDPOINT_URL_DYNAMODB: peers.dynamodbEndpoint,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: secretsManager.url,
      AWS_ENDPOINT_URL_SQS: sqs.url,
      // s3rver answers no flexible checksums.
      AWS_REQUEST_CHECKSUM_CALCULATION: 'WHEN_REQUIRED',
      AWS_RESPONSE_CHECKSUM_VALIDATION: 'WHEN_REQUIRED',
      ...env,
    };
  };

  let calls = 0;
  const invoke = async (name: FunctionName, events: unknown[]): Promise<Invocation> => {
    const fn = functions[name];
    const n = calls++;
    const eventsFile = join(workDir, `events-${n}.json`);
    const resultsFile = join(workDir, `results-${n}.json`);
    writeFileSync(eventsFile, JSON.stringify(events));
    const { stdout, stderr } = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
      execFile(
        process.execPath,
        [RUNNER, fn.assetDir, eventsFile, resultsFile, String(fn.timeout)],
        { env: lambdaEnv(name, fn), cwd: fn.assetDir, maxBuffer: 64 * 1024 * 1024, timeout: 120_000 },
        (error, out, err) =>
          error
            ? reject(Object.assign(error, { message: `${error.message}\n${err}` }))
            : resolve({ stdout: out, stderr: err }),
      );
    });
    const lines = (stdout + stderr).split('\n').filter((l) => l.startsWith('{'));
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    return {
      results: JSON.parse(readFileSync(resultsFile, 'utf8')),
      stdout,
      stderr,
      metrics: parsed.filter((l) => '_aws' in l),
      logs: parsed.filter((l) => !('_aws' in l)) as Invocation['logs'],
    };
  };

  return {
    peers,
    proxy,
    secretsManager,
    sqs,
    secrets,
    queued,
    functions,
    outdir,
    invoke,
    placeholderSecret,
    realSecret,
    async close() {
      await Promise.allSettled([proxy.close(), secretsManager.close(), sqs.close()]);
      await peers.close();
      rmSync(workDir, { recursive: true, force: true });
    },
  };
}

/** The README's example production config, pointed at the local peers (what `cdk synth` would bundle, locally). */
function localConfig(peers: LocalPeers, proxy: CountingProxy) {
  const raw = JSON.parse(readFileSync(PRODUCTION_EXAMPLE, 'utf8'));
  const emu = peers.emulator;
  const products = emu.products.slice(0, 2).map((p) => ({ id: p.productId, name: p.productName }));
  const utcMonday = { day: 'monday', time: '00:00', timeZone: 'UTC' };
  raw.service = { ...raw.service, baseUrl: proxy.url, origin: emu.origin, headerPrefix: emu.headerPrefix };
  raw.products = products;
  raw.mail = { ...raw.mail, transport: { kind: 'smtp', host: peers.smtp.host, port: peers.smtp.port } };
  // Due whenever the test runs: last week's digest and report are due from Monday 00:00 UTC on.
  raw.digests = raw.digests.map((d: Record<string, unknown>) => ({
    ...d,
    productIds: products.map((p) => p.id),
    recipients: (d.recipients as Record<string, unknown>[]).map((r) => ({ ...r, timeZone: 'UTC' })),
    schedule: utcMonday,
  }));
  raw.licenses.report = { ...raw.licenses.report, schedule: utcMonday };
  return parseConfig(raw, PRODUCTION_EXAMPLE);
}

// The same feature flags as `cdk synth`.
const cdkContext = JSON.parse(readFileSync(join(ROOT, 'cdk.json'), 'utf8')).context;

interface LambdaProperties {
  Code: { S3Key: string };
  Timeout: number;
  MemorySize: number;
  Environment?: { Variables: Record<string, string> };
}

/** Synthesizes the stack with bundling into `outdir`; each Pulse function's asset directory and settings. */
function synthBundled(outdir: string, config: ReturnType<typeof parseConfig>): Record<FunctionName, BundledFunction> {
  const app = new App({ outdir, context: cdkContext });
  new PulseStack(app, 'Pulse', { config });
  const assembly = app.synth();
  const template = assembly.getStackByName('Pulse').template as {
    Resources: Record<string, { Type: string; Properties: LambdaProperties }>;
  };
  const functions: Partial<Record<FunctionName, BundledFunction>> = {};
  for (const resource of Object.values(template.Resources)) {
    if (resource.Type !== 'AWS::Lambda::Function') continue;
    const environment = resource.Properties.Environment?.Variables ?? {};
    const job = environment.PULSE_JOB as FunctionName | undefined;
    if (job === undefined) continue; // CDK's own (bucket notifications)
    const key = resource.Properties.Code.S3Key;
    functions[job] = {
      assetDir: join(outdir, `asset.${key.replace(/\.zip$/, '')}`),
      timeout: resource.Properties.Timeout,
      memory: resource.Properties.MemorySize,
      environment,
    };
  }
  return functions as Record<FunctionName, BundledFunction>;
}
