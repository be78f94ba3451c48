/**
 * sdk/schema.d.ts is generated from the OpenAPI document (npm run generate:sdk). This regenerates it in memory,
 * in a child process like the npm script (openapi-typescript is ESM-only), and fails when the committed file
 * differs: a contract change without a regenerated SDK.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const root = join(__dirname, '..', '..');

it('the committed SDK types match the OpenAPI document the platform serves', async () => {
  const { stdout } = await promisify(execFile)(join(root, 'node_modules', '.bin', 'tsx'), ['bin/generate-sdk.ts', '--stdout'], {
    cwd: root,
    maxBuffer: 64 * 1024 * 1024,
  });
  const committed = readFileSync(join(root, 'sdk', 'schema.d.ts'), 'utf8');
  expect(stdout.length).toBeGreaterThan(1000);
  // toBe would print two 20k-line strings; the first differing line says what changed.
  const fresh = stdout.split('\n');
  const old = committed.split('\n');
  const at = fresh.findIndex((line, i) => line !== old[i]);
  const firstDifference = at === -1 && fresh.length === old.length ? null : { line: at + 1, generated: fresh[at], committed: old[at] };
  expect(firstDifference).toBeNull();
});
