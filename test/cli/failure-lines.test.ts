/** The one-line hints of failure.ts that depend on the command: `--local` is suggested only where it exists. */
import { expect, it } from 'vitest';
import { describeFailure } from '../../src/cli/failure.ts';
import { EXIT } from '../../src/cli/io.ts';

const noAwsCredentials = () =>
  Object.assign(new Error('Could not load credentials from any providers'), {
    name: 'CredentialsProviderError',
  });

it('suggests --local for a job command without AWS credentials, never for pulse doctor', () => {
  const job = describeFailure(noAwsCredentials());
  expect(job).toEqual({
    code: EXIT.auth,
    line: expect.stringMatching(/configure AWS credentials \(or run with --local\)$/),
  });
  const doctor = describeFailure(noAwsCredentials(), { noLocalMode: true });
  expect(doctor.code).toBe(EXIT.auth);
  expect(doctor.line).toMatch(/configure AWS credentials$/);
});

it('says how to give the AWS region the SDK is missing', () => {
  const { code, line } = describeFailure(new Error('Region is missing'));
  expect(code).toBe(EXIT.usage);
  expect(line).toBe('Region is missing: set AWS_REGION (or AWS_PROFILE with a region) and run again');
});
