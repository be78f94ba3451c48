import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * The gateway and the backend share the signing protocol through core/identity/gateway-signature.ts; the
 * gateway's production code imports no adapter (issue 8 moved the protocol out of adapters/http).
 */
const GATEWAY = resolve(__dirname, '../../gateway');

it('gateway production code imports nothing from adapters/', () => {
  const offenders = readdirSync(GATEWAY)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .filter((f) => /from '\.\.\/adapters\//.test(readFileSync(join(GATEWAY, f), 'utf8')));
  expect(offenders).toEqual([]);
});
