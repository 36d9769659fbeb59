/**
 * Each function's bundle loads only the SDK clients its job calls (functions/<fn>/runtime.ts): every handler bundled with the
 * Lambda's build options (bench/lambda-bundle.ts), its metafile's imports read for the AWS SDK packages and mail
 * modules it reaches.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { LAMBDA_BUILD_OPTIONS } from '../../bench/lambda-bundle.ts';

const ROOT = new URL('../..', import.meta.url).pathname;

/** The `@aws-sdk/client-*` / `lib-*` packages a bundle imports (external) or contains, and whether nodemailer is in. */
async function loaded(fn: string): Promise<{ sdk: string[]; nodemailer: boolean }> {
  const result = await build({
    ...LAMBDA_BUILD_OPTIONS,
    entryPoints: [join(ROOT, 'functions', fn, 'handler.ts')],
    outfile: join(tmpdir(), `pulse-imports-${fn}`, 'index.mjs'),
    write: false,
    metafile: true,
    logLevel: 'error',
  });
  const paths = new Set<string>(Object.keys(result.metafile.inputs));
  for (const input of Object.values(result.metafile.inputs)) for (const i of input.imports) paths.add(i.path);
  const sdk = new Set<string>();
  for (const p of paths) {
    const name = /@aws-sdk\/((?:client|lib)-[a-z0-9-]+)/.exec(p)?.[1];
    if (name) sdk.add(name);
  }
  return { sdk: [...sdk].sort(), nodemailer: [...paths].some((p) => p.includes('nodemailer')) };
}

describe('function bundles load only the SDK clients their job calls', () => {
  it.each([
    ['archive-copy', ['client-dynamodb', 'client-s3', 'client-secrets-manager', 'lib-dynamodb'], false],
    ['archive-plan', ['client-dynamodb', 'client-s3', 'client-secrets-manager', 'client-sqs', 'lib-dynamodb'], false],
    ['digest', ['client-dynamodb', 'client-s3', 'client-secrets-manager', 'client-sesv2', 'lib-dynamodb'], true],
    ['license-alerts', ['client-dynamodb', 'client-secrets-manager', 'client-sesv2', 'lib-dynamodb'], true],
    [
      'license-report',
      ['client-dynamodb', 'client-s3', 'client-secrets-manager', 'client-sesv2', 'lib-dynamodb'],
      true,
    ],
    ['license-sync', ['client-s3', 'client-secrets-manager'], false],
    // S3 for each run's evidence (the archive); its states are in the table.
    ['usage-alerts', ['client-dynamodb', 'client-s3', 'client-secrets-manager', 'client-sesv2', 'lib-dynamodb'], true],
    // The deploy-time custom resource of the credentials secret: Secrets Manager only.
    ['secret-setup', ['client-secrets-manager'], false],
    // Secrets Manager for an SMTP transport's credentials secret; no S3, no Reporting Service.
    ['mail-events', ['client-dynamodb', 'client-secrets-manager', 'client-sesv2', 'lib-dynamodb'], true],
  ] as const)(
    '%s',
    async (fn, sdk, nodemailer) => {
      expect(await loaded(fn)).toEqual({ sdk, nodemailer });
    },
    30_000,
  );
});
