// Builds the operator console into dist/console, served by the backend under /console (adapters/http/console-static.ts).
import { fileURLToPath } from 'node:url';

import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  base: '/console/',
  publicDir: false,
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/console', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    // The CSP allows no inline script: keep even the module-preload helper in a file.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 300,
  },
});
