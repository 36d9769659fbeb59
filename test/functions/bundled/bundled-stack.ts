/**
 * The Pulse stack synthesized with real bundling (local esbuild) from the README's example production config,
 * adjusted to the local peers: the service is the emulator (behind a connection-counting proxy), the products are
 * the emulator's, mail goes to the SMTP sink, schedules are in UTC. Each function's handler is then run from its
 * asset (`cdk.out/asset.<hash>/index.mjs` + `pulse.config.json` + templates) in a child process, the way Lambda
 * runs it: the template's environment (CloudFormation references replaced by the local peers' names, `/var/task` by
 * the asset directory), its NODE_OPTIONS, the AWS SDK clients pointed at the peers by `AWS_ENDPOINT_URL_*`. Secrets
 * Manager and SQS have no local peer: small AWS-JSON-protocol stubs stand in (test/helpers/aws-json-stub.ts); mail
 * goes through SES v2 (the production config's transport) to a stub that relays it to the SMTP sink
 * (test/helpers/sesv2-stub.ts); S3 requests pass a proxy that makes s3rver's bucket look versioned, like the Object
 * Lock bucket in AWS (test/helpers/versioned-s3-proxy.ts). Every AWS SDK command a container sends is recorded
 * (sdk-call-recorder.mjs, preloaded), so the tests can judge each against the stack's IAM (test/iam/).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { PulseStack } from '../../../lib/stacks/pulse-stack.ts';
import { PLACEHOLDER_USER_NAME } from '../../../src/adapters/aws/secrets.ts';
import { type LocalPeers, startLocalPeers } from '../../../src/adapters/local/local-peers.ts';
import { parseConfig } from '../../../src/config/load.ts';
import { type AwsJsonStub, getSecretValue, sendMessageBatch, startAwsJsonStub } from '../../helpers/aws-json-stub.ts';
import { type CountingProxy, startCountingProxy } from '../../helpers/counting-proxy.ts';
import { type SecretStore, secretLifecycleOperations } from '../../helpers/secrets-manager-peer.ts';
import { type SesV2Stub, startSesV2Stub } from '../../helpers/sesv2-stub.ts';
import { startVersionedS3Proxy, type VersionedS3Proxy } from '../../helpers/versioned-s3-proxy.ts';
import type { SdkCall } from '../../iam/aws-requests.ts';
import type { CfnTemplate } from '../../iam/cfn-resolver.ts';
import { PRODUCTION_EXAMPLE } from '../../infra/synth-pulse.ts';

const ROOT = new URL('../../..', import.meta.url).pathname;
const RUNNER = new URL('./lambda-runner.mjs', import.meta.url).pathname;
const RECORDER = new URL('./sdk-call-recorder.mjs', import.meta.url).pathname;
const REGION = 'us-east-1';
export const SECRET_ARN = `arn:aws:secretsmanager:${REGION}:123456789012:secret:pulse/reporting-service-AbCdEf`;
const QUEUE_PATH = '/123456789012/Pulse-ArchiveCopyQueue';
/** The stand-in name of the stack's SES configuration set (the SES stub takes any). */
export const MAIL_CONFIGURATION_SET = 'pulse-mail-events';
/**
 * The service's own limit of sessions per user (docs/interface.md "Sessions"), so the session budget is tested
 * against it.
 */
export const SERVICE_SESSION_LIMIT = 5;

export type FunctionName =
  | 'digest'
  | 'archive-plan'
  | 'archive-copy'
  | 'archive-verify'
  | 'license-alerts'
  | 'license-report'
  | 'license-sync'
  | 'usage-alerts'
  | 'mail-events'
  | 'secret-setup';

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
  /** The secrets the deploy-time secret setup creates, adopts or finds taken (by name). */
  secretStore: SecretStore;
  /** Messages the archive plan sent to the copy queue (SendMessageBatch), in order. */
  queued: { id: string; body: string }[];
  /** The SES v2 stub the mail goes through (relayed to the SMTP sink). */
  ses: SesV2Stub;
  /** The proxy in front of s3rver that answers version ids, as the versioned archive bucket does. */
  s3: VersionedS3Proxy;
  functions: Record<FunctionName, BundledFunction>;
  /** The synthesized template the functions were bundled from, and its stack's name. */
  template: CfnTemplate;
  stackName: string;
  /**
   * Each local name the functions were given (the peers' bucket and table, the stubs' secret ARN and queue URL) →
   * the template value it stands for (the reference in the functions' environment, e.g. `{ Ref: ArchiveBucket… }`).
   */
  standIns: Map<string, unknown>;
  /** Every AWS SDK command the containers sent so far, in order, each with its function (sdk-call-recorder.mjs). */
  sdkCalls: SdkCall[];
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
  const secretStore: SecretStore = new Map();
  const secretsManager = await startAwsJsonStub({
    'secretsmanager.GetSecretValue': getSecretValue(secrets),
    ...secretLifecycleOperations(secretStore, REGION),
  });
  const queued: { id: string; body: string }[] = [];
  const sqs = await startAwsJsonStub({ 'AmazonSQS.SendMessageBatch': sendMessageBatch(queued) });
  const ses = await startSesV2Stub(peers.smtp);
  const s3 = await startVersionedS3Proxy(peers.s3Endpoint);

  const outdir = join(workDir, 'cdk.out');
  const { functions, template, stackName } = synthBundled(outdir, localConfig(peers, proxy));
  // The state table's key attributes: the only ones the recorder keeps of an item a function puts.
  const keyAttributes = Object.values(template.Resources)
    .filter((r) => r.Type === 'AWS::DynamoDB::Table')
    .flatMap((r) => ((r.Properties?.KeySchema ?? []) as { AttributeName: string }[]).map((k) => k.AttributeName));
  // The bundles leave the AWS SDK to the runtime (pulse-function.ts), as /var/runtime/node_modules holds it in
  // Lambda; here the project's node_modules stands in, found by Node's resolution from asset.<hash>/.
  symlinkSync(join(ROOT, 'node_modules'), join(outdir, 'node_modules'));

  const names: Record<string, string> = {
    PULSE_STATE_TABLE: peers.tableName,
    PULSE_ARCHIVE_BUCKET: peers.bucket,
    PULSE_SERVICE_SECRET_ARN: SECRET_ARN,
    PULSE_COPY_QUEUE_URL: `${sqs.url}${QUEUE_PATH}`,
    PULSE_SES_CONFIGURATION_SET: MAIL_CONFIGURATION_SET,
  };
  const standIns = new Map<string, unknown>();
  for (const fn of Object.values(functions))
    for (const [key, value] of Object.entries(fn.environment))
      if (typeof value !== 'string' && names[key] !== undefined) standIns.set(names[key], value);
  const sdkCalls: SdkCall[] = [];
  const lambdaEnv = (name: FunctionName, fn: BundledFunction, callsFile: string): Record<string, string> => {
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
      AWS_ENDPOINT_URL_S3: s3.url,
      AWS_ENDPOINT_URL_DYNAMODB: peers.dynamodbEndpoint,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: secretsManager.url,
      AWS_ENDPOINT_URL_SQS: sqs.url,
      AWS_ENDPOINT_URL_SESV2: ses.url,
      // Where sdk-call-recorder.mjs writes each command the container sends.
      PULSE_SDK_CALLS_FILE: callsFile,
      PULSE_SDK_CALLS_KEY_ATTRIBUTES: keyAttributes.join(','),
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
    const callsFile = join(workDir, `sdk-calls-${n}.jsonl`);
    writeFileSync(eventsFile, JSON.stringify(events));
    const { stdout, stderr } = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
      execFile(
        process.execPath,
        ['--import', RECORDER, RUNNER, fn.assetDir, eventsFile, resultsFile, String(fn.timeout)],
        { env: lambdaEnv(name, fn, callsFile), cwd: fn.assetDir, maxBuffer: 64 * 1024 * 1024, timeout: 120_000 },
        (error, out, err) =>
          error
            ? reject(Object.assign(error, { message: `${error.message}\n${err}` }))
            : resolve({ stdout: out, stderr: err }),
      );
    });
    if (existsSync(callsFile))
      for (const line of readFileSync(callsFile, 'utf8').split('\n'))
        if (line !== '') sdkCalls.push({ fn: name, ...(JSON.parse(line) as Omit<SdkCall, 'fn'>) });
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
    secretStore,
    queued,
    ses,
    s3,
    functions,
    template,
    stackName,
    standIns,
    sdkCalls,
    outdir,
    invoke,
    placeholderSecret,
    realSecret,
    async close() {
      await Promise.allSettled([proxy.close(), secretsManager.close(), sqs.close(), ses.close(), s3.close()]);
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
  // The example's own transport (SES v2) and sender, so the stack's SES grants are the production ones; the SES stub
  // relays each message to the SMTP sink.
  raw.mail = { ...raw.mail, transport: { kind: 'ses' } };
  // Due whenever the test runs: last week's digest and report are due from Monday 00:00 UTC on.
  raw.digests = raw.digests.map((d: Record<string, unknown>) => ({
    ...d,
    productIds: products.map((p) => p.id),
    recipients: (d.recipients as Record<string, unknown>[]).map((r) => ({ ...r, timeZone: 'UTC' })),
    schedule: utcMonday,
  }));
  raw.licenses.report = { ...raw.licenses.report, schedule: utcMonday };
  // The emulator's products; the daily rule fires whenever the test runs (any active client over the last complete
  // days, judged at once), so a run tells it and its rerun has nothing new to tell. The weekly rule stays the
  // example's: judged or not, as the emulator's history allows.
  raw.usageAlerts.rules = raw.usageAlerts.rules.map((r: Record<string, unknown>, i: number) => ({
    ...r,
    productIds: products.map((p) => p.id),
    ...(i === 0 ? { condition: { kind: 'threshold', above: 0 }, minVolume: 0, settleHours: 0 } : {}),
  }));
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

/** Synthesizes the stack with bundling into `outdir`; the template, each Pulse function's asset directory and settings. */
function synthBundled(
  outdir: string,
  config: ReturnType<typeof parseConfig>,
): { functions: Record<FunctionName, BundledFunction>; template: CfnTemplate; stackName: string } {
  const app = new App({ outdir, context: cdkContext });
  const { stackName } = new PulseStack(app, 'Pulse', { config });
  const assembly = app.synth();
  const template = assembly.getStackByName(stackName).template as {
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
  return {
    functions: functions as Record<FunctionName, BundledFunction>,
    template: template as unknown as CfnTemplate,
    stackName,
  };
}
