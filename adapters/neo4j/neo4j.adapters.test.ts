/**
 * GRAPH_STORE=neo4j through the configuration loader production uses: its keys are validated with the rest
 * of the configuration and every missing or malformed one is listed in the one boot error.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { loadConfig, selectedAdapters } from '../../app/configuration';
import { ConfigError } from '../config/load-config';

let dataDir: string;
beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'ap-neo4j-config-'));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig('start', { DATA_DIR: dataDir, ...env });
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}

describe('GRAPH_STORE=neo4j configuration', () => {
  it('is selected by GRAPH_STORE=neo4j with its keys', () => {
    const c = loadConfig('start', {
      DATA_DIR: dataDir,
      GRAPH_STORE: 'neo4j',
      NEO4J_URL: 'bolt://neo4j:7687',
      NEO4J_PASSWORD: 'secret-password',
      NEO4J_DATABASE: 'graphs',
    });
    expect(selectedAdapters(c.settings).GRAPH_STORE).toEqual(['neo4j']);
    expect(c.settings).toMatchObject({ NEO4J_URL: 'bolt://neo4j:7687', NEO4J_USER: 'neo4j', NEO4J_DATABASE: 'graphs' });
  });

  it('lists the missing URL and password together, and a URL that is not Bolt', () => {
    expect(
      problemsOf({ GRAPH_STORE: 'neo4j' })
        .map((p) => p.split(':')[0])
        .sort(),
    ).toEqual(['NEO4J_PASSWORD', 'NEO4J_URL']);
    expect(problemsOf({ GRAPH_STORE: 'neo4j', NEO4J_URL: 'http://neo4j:7474', NEO4J_PASSWORD: 'x' }).map((p) => p.split(':')[0])).toEqual([
      'NEO4J_URL',
    ]);
  });

  it('keeps the Postgres tables by default even when NEO4J_URL is set', () => {
    const c = loadConfig('start', { DATA_DIR: dataDir, NEO4J_URL: 'bolt://neo4j:7687' });
    expect(selectedAdapters(c.settings).GRAPH_STORE).toEqual(['postgres']);
  });
});
