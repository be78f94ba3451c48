import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The image cannot be built here (no Docker daemon); this pins the instructions the roles rely on. */
const root = join(__dirname, '..', '..');
const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
const lines = dockerfile
  .replace(/\\\n\s*/g, ' ')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));
const instructions = (name: string) =>
  lines.filter((l) => l.toUpperCase().startsWith(`${name} `)).map((l) => l.slice(name.length + 1).trim());
const finalStage = lines.slice(lines.map((l) => l.toUpperCase().startsWith('FROM ')).lastIndexOf(true));

describe('Dockerfile', () => {
  it('builds on node:20-bookworm-slim, installing the locked production dependencies', () => {
    for (const from of instructions('FROM')) expect(from).toMatch(/^node:20-bookworm-slim\b/);
    expect(instructions('RUN').some((r) => /\bnpm install --omit=dev\b/.test(r))).toBe(true);
  });

  it('runs the roles as a non-root user through the one binary', () => {
    const users = finalStage.filter((l) => /^USER /i.test(l)).map((l) => l.slice(5).trim());
    expect(users.length).toBeGreaterThan(0);
    expect(['root', '0']).not.toContain(users[users.length - 1]);
    // One process (not npx → sh → tsx) so that SIGTERM reaches the platform's graceful shutdown.
    expect(instructions('ENTRYPOINT')).toEqual(['["node", "--import", "tsx", "bin/platform.ts"]']);
    expect(instructions('CMD')).toEqual(['["start"]']);
  });

  it('exposes the gateway and api ports and checks /health', () => {
    expect(instructions('EXPOSE').join(' ').split(/\s+/).sort()).toEqual(['4000', '4001']);
    const health = instructions('HEALTHCHECK');
    expect(health).toHaveLength(1);
    expect(health[0]).toContain('/health');
  });

  it('bundles the chat widget into the image, so /widget.js is served without a build on the host', () => {
    expect(instructions('RUN')).toContain('node widget/build.mjs');
    expect(finalStage.some((l) => /^COPY --from=deps \/app\/dist \.\/dist$/i.test(l))).toBe(true);
  });

  it('keeps local state and secrets out of the build context', () => {
    const ignored = readFileSync(join(root, '.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim());
    for (const entry of ['node_modules', '.git', 'data', '.env']) expect(ignored).toContain(entry);
  });
});
