import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configJsonSchema } from '../../src/config/json-schema.ts';
import { ConfigError, configPath, loadConfig, MAX_CONFIG_BYTES, parseConfig } from '../../src/config/load.ts';
import { deployNames } from '../../src/config/schema.ts';

/** A temporary folder for one test's files, removed after the file's tests. */
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'pulse-config-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const EXAMPLE = new URL('../../examples/pulse.config.json', import.meta.url).pathname;
// biome-ignore lint/suspicious/noExplicitAny: each case mutates a different corner of a raw JSON document.
type RawConfig = any;
const example = (): RawConfig => JSON.parse(readFileSync(EXAMPLE, 'utf8'));

describe('pulse.config.json', () => {
  it('accepts the bundled example and fills defaults', () => {
    const cfg = loadConfig(EXAMPLE);
    expect(cfg.digests[0]!.sections).toContain('activity');
    expect(cfg.digests[0]!.thresholds.daysUntilDeclaredLost).toBe(30);
    expect(cfg.service.headerPrefix).toBe('Svc');
    expect(cfg.service.sessionBudget).toBe(3);
    expect(cfg.archive?.clientSource).toBe('export');
  });

  it.each([
    [
      (c: RawConfig) => (c.digests[0].recipients[1].timeZone = 'Mars/Base'),
      'digests[0].recipients[1].timeZone: unknown IANA',
    ],
    [(c: RawConfig) => (c.digests[0].productIds = ['42']), 'digests[0].productIds[0]: 42 is not in products'],
    [(c: RawConfig) => (c.digests[0].schedule.time = '25:00'), 'digests[0].schedule.time: HH:MM'],
    [(c: RawConfig) => (c.service.baseUrl = 'ftp://x'), 'service.baseUrl:'],
    [(c: RawConfig) => (c.service.password = 'x'), 'service: Unrecognized key'],
    [(c: RawConfig) => c.digests.push(c.digests[0]), 'digests[1].id: duplicate digest id exec-weekly'],
    [(c: RawConfig) => c.products.push({ ...c.products[0] }), `products[2].id: duplicate product id 12345678901`],
    [(c: RawConfig) => (c.products[0].id = 12345678901), 'products[0].id:'],
    [(c: RawConfig) => (c.archive.clientSource = 'csv'), 'archive.clientSource:'],
    [(c: RawConfig) => (c.service.sessionBudget = 5), 'service.sessionBudget: at most 4: the service allows 5'],
    [(c: RawConfig) => (c.service.sessionBudget = 2), 'service.sessionBudget: at least 3: 2 archive copiers'],
    [(c: RawConfig) => (c.service.sessionBudget = 3.5), 'service.sessionBudget:'],
  ])('names the field path of a bad value (%#)', (mutate, expected) => {
    const c = example();
    mutate(c);
    expect(() => parseConfig(c, 'pulse.config.json')).toThrow(ConfigError);
    expect(() => parseConfig(c, 'pulse.config.json')).toThrow(expected);
  });

  it.each([
    ['a ".." segment', 'archive.prefix', { prefix: '../../../x' }, /archive\.prefix: has a "\." or "\.\." segment/],
    ['a "." segment', 'archive.prefix', { prefix: 'pulse/./x' }, /archive\.prefix: has a "\." or "\.\." segment/],
    ['an absolute path', 'archive.prefix', { prefix: '/srv/pulse' }, /archive\.prefix: starts with "\/"/],
    ['a backslash', 'archive.prefix', { prefix: 'pulse\\..\\x' }, /archive\.prefix: contains a backslash/],
    ['a control character', 'archive.prefix', { prefix: 'pul\u0007se' }, /archive\.prefix: contains a control/],
    ['a non-ASCII character', 'archive.prefix', { prefix: 'pulsé' }, /archive\.prefix: contains a non-ASCII/],
    ['a bidi override', 'archive.prefix', { prefix: 'a\u202eb' }, /archive\.prefix: contains a non-ASCII/],
    ['a ".." template', 'archive.keyTemplate', { keyTemplate: '<prefix>/../<fileName>' }, /"\." or "\.\." segment/],
    ['an absolute template', 'archive.keyTemplate', { keyTemplate: '/<prefix>/<fileName>' }, /starts with "\/"/],
    ['an unknown placeholder', 'archive.keyTemplate', { keyTemplate: '<prefix>/<month>/<fileName>' }, /<month>/],
    ['a non-ASCII template', 'archive.keyTemplate', { keyTemplate: 'archiv€/<fileName>' }, /non-ASCII/],
  ])('refuses an archive key part with %s at load, naming %s', (_label, path, change, message) => {
    const c = example();
    Object.assign(c.archive, change);
    expect(() => parseConfig(c, 'pulse.config.json')).toThrow(ConfigError);
    expect(() => parseConfig(c, 'pulse.config.json')).toThrow(`${path}: `);
    expect(() => parseConfig(c, 'pulse.config.json')).toThrow(message);
  });

  it('refuses digest and product ids that could leave the archive (they become key parts)', () => {
    const digest = example();
    digest.digests[0].id = '../x';
    expect(() => parseConfig(digest)).toThrow('digests[0].id: ');
    const product = example();
    product.products[0].id = '../1';
    expect(() => parseConfig(product)).toThrow('products[0].id: ');
  });

  it('accepts prefixes that are safe: nested, empty, with a trailing slash', () => {
    for (const prefix of ['org/pulse', '', 'pulse/', 'a..b/c.d']) {
      const c = example();
      c.archive.prefix = prefix;
      expect(parseConfig(c).archive?.prefix).toBe(prefix);
    }
  });

  it('reports unreadable files and bad JSON with the path', () => {
    const dir = tempDir();
    expect(() => loadConfig(join(dir, 'missing.json'))).toThrow(/missing\.json: cannot read \(ENOENT\)/);
    writeFileSync(join(dir, 'bad.json'), '{ "service": ');
    expect(() => loadConfig(join(dir, 'bad.json'))).toThrow(/bad\.json: not valid JSON/);
  });

  it('refuses a file over 1 MiB before reading it, naming the path and the limit', () => {
    const dir = tempDir();
    const file = join(dir, 'huge.json');
    const c = example();
    c.digests[0].title = 'x'.repeat(MAX_CONFIG_BYTES);
    writeFileSync(file, JSON.stringify(c));
    expect(() => loadConfig(file)).toThrow(ConfigError);
    expect(() => loadConfig(file)).toThrow(
      `${file}: too large (${statSync(file).size} bytes); a config file may have at most 1048576 bytes (1 MiB)`,
    );
    // Just under the limit is read, and then refused by the schema for its title.
    c.digests[0].title = 'x'.repeat(MAX_CONFIG_BYTES - 5000);
    writeFileSync(file, JSON.stringify(c));
    expect(() => loadConfig(file)).toThrow('digests[0].title: at most 200 characters');
  });

  it('reads a pipe of at most 1 MiB, and refuses a longer one (its size is unknown before reading)', () => {
    if (process.platform === 'win32') return;
    const dir = tempDir();
    const fifo = join(dir, 'config.fifo');
    execFileSync('mkfifo', [fifo]);
    const writer = spawn('sh', ['-c', `head -c ${MAX_CONFIG_BYTES + 10} /dev/zero | tr '\\0' ' ' > '${fifo}'`]);
    expect(() => loadConfig(fifo)).toThrow(/config\.fifo: too large \(more than 1048576 bytes\)/);
    writer.kill();
  });

  it('accepts a leading UTF-8 byte order mark', () => {
    const dir = tempDir();
    const file = join(dir, 'bom.json');
    writeFileSync(file, `\uFEFF${readFileSync(EXAMPLE, 'utf8')}`);
    expect(loadConfig(file)).toEqual(loadConfig(EXAMPLE));
  });

  it.each([
    [(c: RawConfig) => (c.digests[0].title = 't'.repeat(201)), 'digests[0].title: at most 200 characters'],
    [(c: RawConfig) => (c.products[0].name = 'n'.repeat(201)), 'products[0].name: at most 200 characters'],
    [
      (c: RawConfig) => (c.digests[0].recipients[0].name = 'n'.repeat(201)),
      'digests[0].recipients[0].name: at most 200 characters',
    ],
  ])('limits titles and names to 200 characters (%#)', (mutate, expected) => {
    const c = example();
    expect(() => parseConfig(c)).not.toThrow();
    mutate(c);
    expect(() => parseConfig(c)).toThrow(expected);
  });

  it("the README's configuration example is valid as shown", () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('## Configuration: `pulse.config.json`'));
    const block = /^```(\w*)\n([\s\S]*?)^```$/m.exec(section);
    expect(block?.[1]).toBe('json');
    const dir = tempDir();
    const file = join(dir, 'readme.json');
    writeFileSync(file, block![2]!);
    const cfg = loadConfig(file);
    expect(cfg.digests[0]!.id).toBe('exec-weekly');
    expect(cfg.archive?.publicBaseUrl).toBe('https://archive.example.com');
  });

  it('takes the path from --config, then PULSE_CONFIG, then the default', () => {
    expect(configPath('a.json', { PULSE_CONFIG: 'b.json' })).toBe('a.json');
    expect(configPath(undefined, { PULSE_CONFIG: 'b.json' })).toBe('b.json');
    expect(configPath(undefined, {})).toBe('pulse.config.json');
  });

  it('ships a JSON Schema that is up to date with the zod schema', () => {
    const committed = JSON.parse(
      readFileSync(new URL('../../schemas/pulse.config.schema.json', import.meta.url), 'utf8'),
    );
    expect(committed).toEqual(configJsonSchema());
  });

  it('reads the optional deploy section: stack Pulse, its secret, an optional alarm email, no data events', () => {
    const c = example();
    expect(parseConfig(c).deploy).toBeUndefined();
    expect(deployNames(parseConfig(c))).toEqual({ stackName: 'Pulse', secretName: 'pulse/reporting-service' });
    c.deploy = { alarmEmail: 'oncall@example.com' };
    expect(parseConfig(c).deploy).toEqual({
      stackName: 'Pulse',
      alarmEmail: 'oncall@example.com',
      cloudTrailDataEvents: false,
    });
    c.deploy = { cloudTrailDataEvents: true };
    expect(parseConfig(c).deploy?.cloudTrailDataEvents).toBe(true);
  });

  it('names the secret after the stack unless deploy.secretName says otherwise', () => {
    const c = example();
    c.deploy = { stackName: 'Pulse-EU' };
    expect(deployNames(parseConfig(c))).toEqual({ stackName: 'Pulse-EU', secretName: 'pulse-eu/reporting-service' });
    c.deploy = { stackName: 'Pulse-EU', secretName: 'acme/reporting' };
    expect(deployNames(parseConfig(c))).toEqual({ stackName: 'Pulse-EU', secretName: 'acme/reporting' });
  });

  it("defaults the archive's Object Lock to 365 days in COMPLIANCE mode, and takes GOVERNANCE for test accounts", () => {
    const c = example();
    expect(parseConfig(c).archive?.retention).toEqual({ days: 365, mode: 'COMPLIANCE' });
    c.archive.retention = { days: 30 };
    expect(parseConfig(c).archive?.retention).toEqual({ days: 30, mode: 'COMPLIANCE' });
    c.archive.retention = { days: 7, mode: 'GOVERNANCE' };
    expect(parseConfig(c).archive?.retention).toEqual({ days: 7, mode: 'GOVERNANCE' });
    c.archive.retention = { days: 36_500 };
    expect(parseConfig(c).archive?.retention.days).toBe(36_500);
  });

  it.each([
    [{ days: 0 }, 'archive.retention.days:'],
    [{ days: 1.5 }, 'archive.retention.days: whole days'],
    [{ days: 36_501 }, 'archive.retention.days: at most 36500'],
    [{ days: '365' }, 'archive.retention.days:'],
    [{ mode: 'LEGAL_HOLD' }, 'archive.retention.mode:'],
    [{ years: 1 }, 'archive.retention: Unrecognized key'],
  ])('refuses a bad archive retention naming the field (%#)', (retention, expected) => {
    const c = example();
    c.archive.retention = retention;
    expect(() => parseConfig(c, 'pulse.config.json')).toThrow(expected);
  });

  it.each([
    [{ secretName: 'pulse reporting' }, 'deploy.secretName: letters, digits'],
    [{ secretName: 'pulse/reporting-abcdef' }, 'deploy.secretName: must not end in "-" and six characters'],
    [{ alarmEmail: 'not-an-address' }, 'deploy.alarmEmail:'],
    [{ stackName: '1pulse' }, 'deploy.stackName: a letter, then letters, digits and -'],
    [{ stackName: 'pulse_eu' }, 'deploy.stackName: a letter, then letters, digits and -'],
    [{ stackname: 'Pulse' }, 'deploy: Unrecognized key'],
    [{ cloudTrailDataEvents: 'yes' }, 'deploy.cloudTrailDataEvents:'],
  ])('refuses a bad deploy section naming the field (%#)', (deploy, expected) => {
    const c = example();
    c.deploy = deploy;
    expect(() => parseConfig(c, 'pulse.config.json')).toThrow(expected);
  });

  it('sorts the default stages like given ones: most distant first', () => {
    const c = example();
    delete c.licenses.stages;
    expect(parseConfig(c).licenses!.stages).toEqual({
      daysBefore: [60, 30, 14, 7, 1],
      onExpiryDay: true,
      daysAfter: [30, 7, 1],
    });
  });

  it('fills the licenses defaults, with stage days distinct and most distant first', () => {
    const c = example();
    c.licenses.stages = { daysBefore: [7, 60, 7, 1], daysAfter: [30, 1] };
    const cfg = parseConfig(c);
    expect(cfg.licenses).toMatchObject({
      stages: { daysBefore: [60, 7, 1], onExpiryDay: true, daysAfter: [30, 1] },
      inUse: { blockedSeenWithinDays: 7 },
      trialTypes: ['trial'],
      usage: { windowDays: 30, heavyClients: 5, dormantClients: 0 },
      owner: { address: 'license-ops@example.com', timeZone: 'Europe/Berlin' },
      sendTime: '08:00',
      maxKeysInEmail: 50,
      report: { title: 'Weekly license registry report' },
    });
    expect(cfg.licenses!.routing[0]!.recipients[0]!.timeZone).toBe('Asia/Tokyo');
  });

  it.each([
    [
      (c: RawConfig) => (c.licenses.routing[1].productIds = ['42']),
      'licenses.routing[1].productIds[0]: 42 is not in products',
    ],
    [(c: RawConfig) => (c.licenses.productIds = ['7']), 'licenses.productIds[0]: 7 is not in products'],
    [
      (c: RawConfig) => (c.licenses.routing[0].keyPattern = '(['),
      'licenses.routing[0].keyPattern: not a valid regular',
    ],
    [
      (c: RawConfig) => (c.licenses.routing[0].recipients[0].timeZone = 'Mars/Base'),
      'licenses.routing[0].recipients[0].timeZone: unknown IANA',
    ],
    [(c: RawConfig) => (c.licenses.stages = { daysBefore: [0] }), 'licenses.stages.daysBefore[0]:'],
    [(c: RawConfig) => (c.licenses.sendTime = '8am'), 'licenses.sendTime: HH:MM'],
    [(c: RawConfig) => delete c.licenses.owner, 'licenses.owner:'],
    [(c: RawConfig) => (c.licenses.report.recipients = []), 'licenses.report.recipients:'],
  ])('refuses a bad licenses section, naming the field (%#)', (change, message) => {
    const c = example();
    change(c);
    expect(() => parseConfig(c)).toThrow(message);
  });
});
