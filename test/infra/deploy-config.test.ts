/** lib/deploy-config.ts and bin/app.ts: `cdk synth`/`deploy` take an explicit config, and only a deployable one. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deployConfigPath, loadDeployConfig, NO_CONFIG_MESSAGE, undeployableBaseUrl } from '../../lib/deploy-config.ts';
import { ConfigError } from '../../src/config/load.ts';
import { PRODUCTION_EXAMPLE } from './synth-pulse.ts';

const ROOT = new URL('../..', import.meta.url).pathname;

describe('deployConfigPath', () => {
  it('takes -c config=FILE first, then $PULSE_CONFIG', () => {
    expect(deployConfigPath('a.json', { PULSE_CONFIG: 'b.json' })).toBe('a.json');
    expect(deployConfigPath(undefined, { PULSE_CONFIG: 'b.json' })).toBe('b.json');
  });

  it('with neither, fails saying how to pass one (no default file)', () => {
    expect(() => deployConfigPath(undefined, {})).toThrow(ConfigError);
    expect(() => deployConfigPath('', {})).toThrow(NO_CONFIG_MESSAGE);
    expect(NO_CONFIG_MESSAGE).toContain('-c config=FILE');
    expect(NO_CONFIG_MESSAGE).toContain('PULSE_CONFIG=FILE');
  });
});

describe('deployable service.baseUrl', () => {
  it.each([
    'http://reporting.example.com',
    'https://127.0.0.1:8787',
    'https://127.1',
    'https://2130706433',
    'https://127.200.3.4',
    'https://[::1]:8787',
    'https://[::ffff:127.0.0.1]',
    'https://localhost:8787',
    'https://LOCALHOST.',
    'https://api.localhost',
  ])('refuses %s', (url) => {
    expect(undeployableBaseUrl(url)).toBeDefined();
  });

  it.each(['https://reporting.example.com', 'https://10.0.0.8', 'https://[2001:db8::1]', 'https://128.0.0.1'])(
    'accepts %s',
    (url) => {
      expect(undeployableBaseUrl(url)).toBeUndefined();
    },
  );

  it('loads the example production config, refuses the local example naming service.baseUrl', () => {
    expect(loadDeployConfig(PRODUCTION_EXAMPLE).service.baseUrl).toBe('https://reporting.example.com');
    const local = `${ROOT}examples/pulse.config.json`;
    expect(() => loadDeployConfig(local)).toThrow(ConfigError);
    expect(() => loadDeployConfig(local)).toThrow(`${local}: service.baseUrl: http:// is not deployable`);
  });
});

describe('deployable archive.keyTemplate', () => {
  it('refuses, naming the file and the field, a template the archive rights cannot be kept off the other jobs for', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pulse-deploy-config-'));
    try {
      const file = join(dir, 'pulse.json');
      const raw = JSON.parse(readFileSync(PRODUCTION_EXAMPLE, 'utf8'));
      raw.archive.keyTemplate = '<prefix>/<yyyy>/<mm>/<product>/<fileName>';
      writeFileSync(file, JSON.stringify(raw));
      expect(() => loadDeployConfig(file)).toThrow(ConfigError);
      expect(() => loadDeployConfig(file)).toThrow(
        `${file}: archive.keyTemplate "<prefix>/<yyyy>/<mm>/<product>/<fileName>": its first folder with a placeholder is "<yyyy>"`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('bin/app.ts', () => {
  const app = (env: Record<string, string>, ...args: string[]) => {
    const { PULSE_CONFIG: _p, ...rest } = process.env;
    return spawnSync(process.execPath, ['bin/app.ts', ...args], {
      cwd: ROOT,
      env: { ...rest, ...env },
      encoding: 'utf8',
    });
  };

  it('without a config exits 2 with the one line saying how to pass it', () => {
    const run = app({});
    expect(run.status).toBe(2);
    expect(run.stderr.trim()).toBe(NO_CONFIG_MESSAGE);
  });

  it('reads -c config=FILE (the CDK CLI hands context to the app as CDK_CONTEXT_JSON)', () => {
    const run = app({ CDK_CONTEXT_JSON: JSON.stringify({ config: 'examples/pulse.config.json' }) });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('examples/pulse.config.json: service.baseUrl:');
  });

  it('refuses a loopback http service named by $PULSE_CONFIG', () => {
    const run = app({ PULSE_CONFIG: 'examples/pulse.config.json' });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('examples/pulse.config.json: service.baseUrl: http:// is not deployable');
  });
});
