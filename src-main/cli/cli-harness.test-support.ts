// The built `deepdesk` bin as a person runs it, for CLI tests: a real folder and data
// folder per test, the scripted model server, and a helper that runs a command to its end.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeAll, beforeEach } from 'vitest';
import { startScriptedServer, type ScriptedServer } from '../core/models/testing/scripted-server';
import { removeDataDir } from '../app/host/testing/remove-data-dir';

export const repo = resolve(import.meta.dirname, '../..');
export const bin = join(repo, 'bin/deepdesk.mjs');

const MODULE_LOG_HOOK = `import { registerHooks } from 'node:module';
import { appendFileSync } from 'node:fs';
registerHooks({
  resolve(specifier, context, next) {
    const resolved = next(specifier, context);
    appendFileSync(process.env.DEEPDESK_TEST_MODULE_LOG, resolved.url + '\\n');
    return resolved;
  },
});
// Node's own modules loaded by the end (process.getBuiltinModule resolves none), as builtin:NAME.
process.once('exit', () => {
  const loaded = process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => 'builtin:' + m.slice('NativeModule '.length));
  appendFileSync(process.env.DEEPDESK_TEST_MODULE_LOG, loaded.join('\\n') + '\\n');
});
`;

/**
 * The environment under which a process, and every process it starts with that environment,
 * appends each module it resolves to `log` (one URL a line): a resolve hook, written into
 * `dir`, given through NODE_OPTIONS. What a command loads is then seen by effect.
 */
export function moduleLogEnv(dir: string, log: string): { DEEPDESK_TEST_MODULE_LOG: string; NODE_OPTIONS: string } {
  const hook = join(dir, 'module-log-hook.mjs');
  writeFileSync(hook, MODULE_LOG_HOOK);
  return { DEEPDESK_TEST_MODULE_LOG: log, NODE_OPTIONS: `--import ${pathToFileURL(hook).href}` };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliTestEnv {
  /** The project folder (its real path). */
  folder: string;
  /** The data folder, also given as DEEPDESK_HOME. */
  dataDir: string;
  server: ScriptedServer;
  /** Runs `deepdesk ARGS…` to its end (with `env` added to the environment, and `input` on its stdin). */
  deepdesk(args: string[], env?: NodeJS.ProcessEnv, input?: string): Promise<CliResult>;
}

/** Registers the set-up and clean-up of one CLI environment per test; read it inside tests. */
export function useCliTestEnv(prefix: string): CliTestEnv {
  const env = {
    deepdesk: (args: string[], extraEnv: NodeJS.ProcessEnv = {}, input?: string) =>
      new Promise<CliResult>((done, reject) => {
        const child = spawn(process.execPath, [bin, ...args], {
          cwd: repo,
          env: { ...process.env, OPENAI_API_KEY: '', DEEPDESK_HOME: env.dataDir, ...extraEnv },
          stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
        });
        if (input !== undefined) child.stdin!.end(input);
        let stdout = '';
        let stderr = '';
        child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
        child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
        child.on('error', reject);
        child.on('close', (code) => done({ code, stdout, stderr }));
      }),
  } as CliTestEnv;
  beforeAll(() => {
    if (!existsSync(join(repo, 'out/main/cli.js'))) throw new Error('run `npm run build` before the CLI tests (npm test does)');
  });
  beforeEach(async () => {
    env.folder = realpathSync(mkdtempSync(join(tmpdir(), `${prefix}-`)));
    env.dataDir = mkdtempSync(join(tmpdir(), `${prefix}-data-`));
    env.server = await startScriptedServer();
  });
  afterEach(async () => {
    await env.server.close();
    removeDataDir(env.dataDir, env.folder);
  });
  return env;
}
