import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';
import { buildIdPlugin } from './scripts/build-id';

// One build for every process: the Electron main process and the CLI share the
// main-process bundle (plain Node, no Electron import outside src-main/clients/electron).
export default defineConfig({
  main: {
    plugins: [buildIdPlugin()],
    build: {
      outDir: 'out/main',
      // zod is bundled (tree-shaken into our chunks): every command validates at its boundary, and
      // loading the package's ~40 modules was half of a warm `deepdesk run`'s client start. The
      // libraries that import zod themselves keep theirs; zod's registry and `instanceof` are
      // built to work across copies.
      externalizeDeps: { exclude: ['zod'] },
      rollupOptions: {
        input: {
          index: resolve(__dirname, 'src-main/desktop-main.ts'),
          cli: resolve(__dirname, 'src-main/cli/main.ts'),
        },
        // V8 holds each module's source for lazy compiling: without the doc comments, and with
        // every character past ASCII written as an escape (one ’ or — in a chunk made all of it
        // a two-byte string; half the chunks were), a host holds ~3 MB less of it.
        output: { charset: 'ascii', comments: { jsdoc: false, legal: true, annotation: false } },
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      rollupOptions: {
        input: { index: resolve(__dirname, 'src-main/clients/electron/preload.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(__dirname, 'src-renderer'),
    plugins: [react()],
    build: {
      outDir: resolve(__dirname, 'out/renderer'),
      // electron-vite leaves the renderer unminified by default; `deepdesk serve` ships it over HTTP.
      minify: true,
      rollupOptions: { input: { index: resolve(__dirname, 'src-renderer/index.html') } },
    },
  },
});
