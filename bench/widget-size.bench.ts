/**
 * Size of the embeddable chat widget as a site downloads it (issue 15 target: under 30 KB gzipped): the
 * production build of widget/build.mjs, gzip -9 and brotli, against the same bundle unminified (baseline,
 * built in the same run) to show what minification buys. Writes bench/results/widget-size.json.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

import { buildSync } from 'esbuild';

const ROOT = join(__dirname, '..');
const TARGET_GZIP_BYTES = 30 * 1024;

const sizes = (code: Buffer) => ({
  bytes: code.length,
  gzipBytes: gzipSync(code, { level: 9 }).length,
  brotliBytes: brotliCompressSync(code, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
});

const out = mkdtempSync(join(tmpdir(), 'widget-size-'));
try {
  const build = spawnSync(process.execPath, [join(ROOT, 'widget', 'build.mjs'), out], { encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`widget build failed: ${build.stderr}`);
  const production = sizes(readFileSync(join(out, 'widget.js')));
  const unminified = buildSync({
    entryPoints: [join(ROOT, 'widget', 'src', 'main.ts')],
    bundle: true,
    format: 'iife',
    write: false,
    tsconfig: join(ROOT, 'widget', 'tsconfig.json'),
  });
  const baseline = sizes(Buffer.from(unminified.outputFiles[0]!.contents));
  const result = {
    date: new Date().toISOString(),
    targetGzipBytes: TARGET_GZIP_BYTES,
    widget: production,
    baselineUnminified: baseline,
    ratios: {
      gzipToTarget: Math.round((production.gzipBytes / TARGET_GZIP_BYTES) * 1000) / 1000,
      gzipToUnminifiedGzip: Math.round((production.gzipBytes / baseline.gzipBytes) * 1000) / 1000,
    },
    runtimeDependencies: 0,
  };
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
  writeFileSync(join(ROOT, 'bench', 'results', 'widget-size.json'), JSON.stringify(result, null, 2) + '\n');
  process.stdout.write(
    `widget.js ${production.bytes} B, gzip ${production.gzipBytes} B (${result.ratios.gzipToTarget} of the 30 KB target), brotli ${production.brotliBytes} B; unminified gzip ${baseline.gzipBytes} B\n`,
  );
  if (production.gzipBytes >= TARGET_GZIP_BYTES) process.exitCode = 1;
} finally {
  rmSync(out, { recursive: true, force: true });
}
