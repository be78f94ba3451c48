/**
 * Inversify earns its place by resolving every port through its token: each DI token the code declares
 * (`export const X = Symbol.for(...)`) is bound in the adapters container, resolvable in a booted
 * infrastructure, and resolved somewhere in app/. A token nothing resolves is dead weight.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';

import { loadConfig } from '../../app/configuration';
import { createContainer } from '../../app/container';
import { buildInfrastructure, type Infrastructure } from '../../app/infrastructure';
import { BOOT_TIMEOUT_MS, cheapPasswords } from '../support/platform';

const ROOT = resolve(__dirname, '../..');
const TOKEN = /export const ([A-Z][A-Z0-9_]*) = Symbol\.for\('([^']+)'\)/g;

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return files(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [path] : [];
  });
}

const declared = ['core', 'app', 'adapters'].flatMap((d) =>
  files(join(ROOT, d)).flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(TOKEN)].map((m) => ({ name: m[1], key: m[2], file: relative(ROOT, file) })),
  ),
);
const appSources = files(join(ROOT, 'app')).map((f) => readFileSync(f, 'utf8'));

describe('DI tokens', () => {
  let infra: Infrastructure;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'ap-tokens-'));
    infra = await buildInfrastructure(loadConfig('start', { DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), () => undefined, {
      memoryDatabase: true,
      passwords: cheapPasswords(),
    });
  }, BOOT_TIMEOUT_MS);
  afterAll(async () => {
    await infra?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('finds the tokens the code declares', () => {
    expect(declared.length).toBeGreaterThan(15);
    expect(declared.map((t) => t.name)).toEqual(expect.arrayContaining(['VECTOR_INDEX', 'BLOB_STORE', 'JOB_QUEUE', 'STORE', 'SERVICES']));
  });

  it('binds and resolves every one of them in the roles container', async () => {
    const container = createContainer(infra);
    const unresolved: string[] = [];
    for (const t of declared) {
      const token = Symbol.for(t.key);
      if (!container.isBound(token)) unresolved.push(`${t.name} (${t.file}) is not bound`);
      else if ((await container.getAsync(token)) === undefined) unresolved.push(`${t.name} resolves to nothing`);
    }
    expect(unresolved).toEqual([]);
  });

  it('has code in app/ that resolves each one (a token only bound is dead)', () => {
    // A direct get, or the source of a token derived from it (bindDerived(container, token, SOURCE, pick)).
    const resolves = (name: string) =>
      appSources.some((text) =>
        new RegExp(`get(Async)?(<[^>]*>)?\\(\\s*${name}\\b|bindDerived(<[^(]*>)?\\([^,]+,[^,]+,\\s*${name}\\b`).test(text),
      );
    expect(declared.filter((t) => !resolves(t.name)).map((t) => `${t.name} (${t.file})`)).toEqual([]);
  });
});
