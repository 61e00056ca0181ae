#!/usr/bin/env node
// Thin launcher: the CLI is bundled into out/main/cli.js by `npm run build` (run by `npm install`).
import { existsSync } from 'node:fs';
import module from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { nodeProblem } from './node-check.mjs';

// Said plainly, before anything loads (an older Node would crash in a native module instead).
const problem = nodeProblem(process.versions.node);
if (problem !== null) {
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
// V8's compiled code kept on disk between runs (Node 22.1+; in the system's temporary folder,
// per Node version): every command starts faster. A Node without it just compiles as before.
module.enableCompileCache?.();
const cli = fileURLToPath(new URL('../out/main/cli.js', import.meta.url));
if (!existsSync(cli)) {
  process.stderr.write('deepdesk: not built yet; run `npm run build` in the deepdesk folder first\n');
  process.exit(1);
}
const { main } = await import(pathToFileURL(cli).href);
process.exitCode = await main(process.argv.slice(2));
