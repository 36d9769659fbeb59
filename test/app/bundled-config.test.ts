/** src/app/bundled-config.ts: a Lambda reads its bundle's pulse.config.json once, with the stack's names laid over. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configFromBundle, DEFAULT_CONFIG_FILE } from '../../src/app/bundled-config.ts';
import { ConfigError } from '../../src/config/load.ts';

const dir = mkdtempSync(join(tmpdir(), 'pulse-bundled-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What the stack writes for the copier (lib/function-config.ts): no state, the bucket named by the config. */
const part = {
  service: {
    baseUrl: 'https://reporting.example.com',
    origin: 'https://dashboard.example.com',
    credentials: { source: 'secretsManager', secretId: 'pulse/reporting-service' },
  },
  products: [{ id: '12345678901' }],
  mail: { from: 'pulse@example.com' },
  archive: { bucket: 'set-by-the-stack', prefix: 'acme/pulse-archive' },
};
let files = 0;
const fileWith = (content: unknown): string => {
  const path = join(dir, `config-${files++}.json`);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
};
const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:pulse/reporting-service-AbCdEf';

describe('configFromBundle', () => {
  it('reads PULSE_CONFIG_FILE and lays the table, the bucket and the secret ARN from the environment over it', () => {
    const config = configFromBundle({
      PULSE_CONFIG_FILE: fileWith(part),
      PULSE_STATE_TABLE: 'Pulse-StateTable-1',
      PULSE_ARCHIVE_BUCKET: 'pulse-archivebucket-1',
      PULSE_SERVICE_SECRET_ARN: SECRET_ARN,
    });
    expect(config.state).toEqual({ tableName: 'Pulse-StateTable-1' });
    expect(config.archive).toMatchObject({ bucket: 'pulse-archivebucket-1', prefix: 'acme/pulse-archive' });
    expect(config.service.credentials).toEqual({ source: 'secretsManager', secretId: SECRET_ARN });
    // Parsed like any config: defaults filled, sections the function did not get left empty.
    expect(config.service.headerPrefix).toBe('Svc');
    expect(config.digests).toEqual([]);
    expect(config.licenses).toBeUndefined();
  });

  it('lays PULSE_SES_CONFIGURATION_SET over an SES transport (the default one too), never over SMTP', () => {
    const env = (mail: unknown) => ({
      PULSE_CONFIG_FILE: fileWith({ ...part, mail }),
      PULSE_SES_CONFIGURATION_SET: 'Pulse-MailEvents-1',
    });
    const ses = configFromBundle(env({ from: 'pulse@example.com', transport: { kind: 'ses', region: 'eu-west-1' } }));
    expect(ses.mail.transport).toEqual({ kind: 'ses', region: 'eu-west-1', configurationSet: 'Pulse-MailEvents-1' });
    const byDefault = configFromBundle(env({ from: 'pulse@example.com' }));
    expect(byDefault.mail.transport).toEqual({ kind: 'ses', configurationSet: 'Pulse-MailEvents-1' });
    const smtp = configFromBundle(env({ from: 'pulse@example.com', transport: { kind: 'smtp', host: 'mail.local' } }));
    expect(smtp.mail.transport).toMatchObject({ kind: 'smtp', host: 'mail.local' });
    expect(smtp.mail.transport).not.toHaveProperty('configurationSet');
  });

  it('keeps the file as it is where the environment names nothing', () => {
    const config = configFromBundle({ PULSE_CONFIG_FILE: fileWith(part) });
    expect(config.archive?.bucket).toBe('set-by-the-stack');
    expect(config.service.credentials).toEqual(part.service.credentials);
    expect(config.state).toBeUndefined();
  });

  it('reads the file once per container: a later call returns the parsed config without reading again', () => {
    const path = fileWith(part);
    const env = { PULSE_CONFIG_FILE: path, PULSE_STATE_TABLE: 't-cached' };
    const first = configFromBundle(env);
    rmSync(path);
    expect(configFromBundle(env)).toBe(first);
  });

  it('defaults to the file next to the bundle in Lambda', () => {
    expect(DEFAULT_CONFIG_FILE).toBe('/var/task/pulse.config.json');
    expect(() => configFromBundle({})).toThrow(`${DEFAULT_CONFIG_FILE}: cannot read (ENOENT)`);
  });

  it.each([
    ['a missing file', () => join(dir, 'absent.json'), /absent\.json: cannot read \(ENOENT\)/],
    ['text that is not JSON', () => fileWith('{ "service": '), /: not valid JSON/],
    ['JSON that is not an object', () => fileWith('[]'), /: invalid configuration/],
    ['an invalid field', () => fileWith({ ...part, products: [{ id: 'x' }] }), /products\[0\]\.id: a product id/],
  ])('refuses %s with a ConfigError naming the file', (_label, path, message) => {
    const file = path();
    expect(() => configFromBundle({ PULSE_CONFIG_FILE: file })).toThrow(ConfigError);
    expect(() => configFromBundle({ PULSE_CONFIG_FILE: file })).toThrow(message);
    expect(() => configFromBundle({ PULSE_CONFIG_FILE: file })).toThrow(file);
  });
});
