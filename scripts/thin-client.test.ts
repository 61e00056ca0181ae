// What `deepdesk run` and `deepdesk --version` load before the host answers (issue 66: a warm
// run's wait is mostly the client's start). The static imports of the run command (import()
// excluded: other commands load their own) must not reach the packages only the host needs —
// yaml, the AI SDK's providers, the pty, SQLite — nor the folder backends; `--version` loads
// no more than the command table.

import { resolve } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const repo = resolve(import.meta.dirname, '..');

/** Every module and package the entry reaches through static imports. */
async function staticClosure(entry: string): Promise<Set<string>> {
  const result = await build({ entryPoints: [entry], absWorkingDir: repo, bundle: true, write: false, metafile: true, platform: 'node', format: 'esm', packages: 'external', outdir: 'unused', splitting: true, logLevel: 'silent' });
  const inputs = result.metafile.inputs;
  const seen = new Set([entry]);
  const queue = [entry];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    for (const imported of inputs[file]?.imports ?? []) {
      if (imported.kind !== 'import-statement' || seen.has(imported.path)) continue;
      seen.add(imported.path);
      queue.push(imported.path);
    }
  }
  return seen;
}

const HOST_ONLY = [/^yaml$/, /^@ai-sdk\//, /^ai$/, /^node-pty$/, /^better-sqlite3$/, /^src-main\/cli\/folders\.ts$/, /^src-main\/app\/contract\/index\.ts$/, /^src-main\/core\/backends\/filesystem\/filesystem\.ts$/];

describe('the thin run client', () => {
  it('deepdesk run loads none of what only the host needs', async () => {
    const closure = [...(await staticClosure('src-main/cli/run-command.ts'))];
    expect(closure.filter((m) => HOST_ONLY.some((re) => re.test(m)))).toEqual([]);
    expect(closure.length).toBeLessThan(100);
  });

  it('deepdesk --version loads the command table and little else', async () => {
    const closure = [...(await staticClosure('src-main/cli/main.ts'))];
    expect(closure.filter((m) => HOST_ONLY.some((re) => re.test(m)))).toEqual([]);
    expect(closure.length).toBeLessThan(40);
  });
});
