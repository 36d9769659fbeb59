/** `$PULSE_LOCAL_EMULATOR`: the local emulator's data set for --local runs; anything wrong in it is a usage error. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localEmulatorOptions } from '../../src/app/local-runtime.ts';
import { main } from '../../src/cli/main.ts';

let workDir: string;
beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'pulse-local-emulator-env-'));
});
afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

async function archiveWith(value: string) {
  let stderr = '';
  const code = await main(['archive', '--local', '--work-dir', workDir, '--dry-run'], {
    stdout: { write: () => true },
    stderr: { write: (t: string) => (stderr += t) },
    env: { PULSE_LOCAL_EMULATOR: value },
  });
  return { code, stderr };
}

describe('$PULSE_LOCAL_EMULATOR', () => {
  it('reads seed, clients and today; unset means the defaults', () => {
    expect(localEmulatorOptions({})).toBeUndefined();
    expect(localEmulatorOptions({ PULSE_LOCAL_EMULATOR: '{"clients":300000,"today":"2026-11-20","seed":3}' })).toEqual({
      clients: 300000,
      today: '2026-11-20',
      seed: 3,
    });
  });

  it('refuses what is not a JSON object of those options, or an invalid value, with exit 2 naming it', async () => {
    expect(await archiveWith('clients=5')).toEqual({
      code: 2,
      stderr: 'pulse: $PULSE_LOCAL_EMULATOR: expected a JSON object such as {"clients": 50000}\n',
    });
    expect(await archiveWith('{"port":1}')).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(
        /^pulse: \$PULSE_LOCAL_EMULATOR: unknown option port; one of seed,clients,today\n$/,
      ),
    });
    expect(await archiveWith('{"clients":0}')).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^pulse: \$PULSE_LOCAL_EMULATOR: clients: must be an integer from 1/),
    });
  });
});
