/**
 * docs/configuration.md is generated from the config schema (scripts/build-config-docs.ts): it fails here while the
 * committed page differs from what the script generates. Failing here: run `npm run build:docs` and commit the page.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CONFIG_DOCS, configDocs, configDocsDifference } from '../../scripts/build-config-docs.ts';
import { configJsonSchema } from '../../src/config/json-schema.ts';

const SCRIPT = new URL('../../scripts/build-config-docs.ts', import.meta.url).pathname;

/** Every field path of the JSON Schema, as the page writes them (`a.b`, `list[].field`). */
function schemaPaths(schema: Record<string, unknown>, path = ''): string[] {
  const s = schema as {
    properties?: Record<string, Record<string, unknown>>;
    items?: Record<string, unknown> & { type?: string };
    oneOf?: Record<string, unknown>[];
  };
  const under = (key: string) => (path === '' ? key : `${path}.${key}`);
  return [
    ...Object.entries(s.properties ?? {}).flatMap(([key, prop]) => [under(key), ...schemaPaths(prop, under(key))]),
    ...(s.items?.type === 'object' ? schemaPaths(s.items, `${path}[]`) : []),
    ...(s.oneOf ?? []).flatMap((variant) => schemaPaths(variant, path)),
  ];
}

describe('docs/configuration.md', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pulse-config-docs-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is what scripts/build-config-docs.ts generates from the schema', () => {
    expect(configDocsDifference(readFileSync(CONFIG_DOCS, 'utf8'))).toBe('');
  });

  it('names every field of the schema, each with a description', () => {
    const page = configDocs();
    const documented = new Set([...page.matchAll(/^(?:- `([^`]+)`:|## `([^`]+)`$)/gm)].map((m) => m[1] ?? m[2]));
    expect(schemaPaths(configJsonSchema()).filter((p) => !documented.has(p))).toEqual([]);
    // Each field: required or not, its type (and default), then a description of its own.
    for (const line of page.split('\n').filter((l) => l.startsWith('- `')))
      expect(line).toMatch(/^- `[^`]+`: (?:\*\*required\*\*|optional), .+\. \S.*\.$/);
  });

  it('names the first differing line', () => {
    const generated = configDocs();
    const stale = generated.replace('calls in flight at once per run', 'calls at once');
    expect(configDocsDifference(stale, generated)).toMatch(
      /^docs\/configuration\.md differs from what scripts\/build-config-docs\.ts generates, first at line \d+:\n {2}committed: .*calls at once.*\n {2}generated: .*calls in flight at once per run/,
    );
    expect(configDocsDifference(undefined, generated)).toBe('docs/configuration.md is missing');
  });

  it('--check exits 1 naming the difference, and 0 once the file is written', () => {
    const file = join(dir, 'configuration.md');
    writeFileSync(file, configDocs().replace('## `deploy`', '## `deployment`'));
    const stale = spawnSync(process.execPath, [SCRIPT, '--check', '--file', file], { encoding: 'utf8' });
    expect(stale.status).toBe(1);
    expect(stale.stderr).toContain('committed: ## `deployment`');
    expect(stale.stderr).toContain('run `npm run build:docs`');
    expect(spawnSync(process.execPath, [SCRIPT, '--file', file], { encoding: 'utf8' }).status).toBe(0);
    const fresh = spawnSync(process.execPath, [SCRIPT, '--check', '--file', file], { encoding: 'utf8' });
    expect(fresh.status).toBe(0);
    expect(fresh.stderr).toBe('');
  });
});
