// Bundles the chat widget (widget/src) into dist/widget/widget.js with esbuild: one minified IIFE, no runtime
// dependencies. Writes dist/widget/manifest.json (content hash, sizes) for the server and the size benchmark.
// Usage: node widget/build.mjs [outDir]
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export async function buildWidget(outDir = join(root, 'dist', 'widget')) {
  const result = await build({
    entryPoints: [join(root, 'widget', 'src', 'main.ts')],
    bundle: true,
    format: 'iife',
    minify: true,
    // Browsers with shadow DOM, fetch streams and optional chaining; nothing needs eval or a polyfill.
    target: ['es2020', 'chrome90', 'firefox90', 'safari15'],
    legalComments: 'none',
    write: false,
    tsconfig: join(root, 'widget', 'tsconfig.json'),
  });
  const code = result.outputFiles[0].contents;
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'widget.js'), code);
  const manifest = {
    file: 'widget.js',
    sha256: createHash('sha256').update(code).digest('hex'),
    bytes: code.length,
    gzipBytes: gzipSync(code, { level: 9 }).length,
  };
  writeFileSync(join(outDir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  return manifest;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const manifest = await buildWidget(process.argv[2] ? resolve(process.argv[2]) : undefined);
  console.log(`widget.js: ${manifest.bytes} bytes, ${manifest.gzipBytes} bytes gzipped (target < 30720)`);
}
