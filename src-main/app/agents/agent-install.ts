// Installing a known agent on the person's confirmation (SPEC §22): its pinned package from the
// npm registry into `<data folder>/agents/installed/NAME@VERSION` (never the project), with no
// install scripts run, made whole in a folder beside it and moved into place only once its script
// is there; an installed version is used as it is.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { runToEnd } from '../../core/process/spawn';
import { allowedEnv, ENV_OPT_INS } from '../../core/process/child-env';
import { agentScript, installDir, installedAgent, type InstalledAgent, type KnownAgent } from './vendors/catalog';

/**
 * Installs the agent's pinned version (the person confirmed); resolves with it, or rejects saying
 * why. It can take minutes: `progress` hears each request npm makes of the registry as it goes.
 */
export async function installAgent(dataDir: string, agent: KnownAgent, options: { npm?: string; timeoutMs?: number; signal?: AbortSignal; progress?(line: string): void } = {}): Promise<InstalledAgent> {
  const done = installedAgent(dataDir, agent);
  if (done) return done;
  const dir = installDir(dataDir, agent);
  mkdirSync(dirname(dir), { recursive: true, mode: 0o700 });
  const staging = mkdtempSync(`${dir}.installing-`);
  const { progress } = options;
  try {
    writeFileSync(join(staging, 'package.json'), JSON.stringify({ name: 'deepdesk-agent', private: true }));
    const ran = await runToEnd({
      role: 'installer',
      file: options.npm ?? 'npm',
      args: ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--omit=dev', '--save-exact', '--loglevel=http', `${agent.packageName}@${agent.version}`],
      cwd: staging,
      env: allowedEnv(ENV_OPT_INS.npm),
      timeoutMs: options.timeoutMs ?? 10 * 60_000,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(progress ? { onStderr: (chunk: Buffer) => lines(chunk.toString('utf8')).forEach(progress) } : {}),
    });
    if (ran.spawnError !== undefined) throw new Error(`npm could not be started (${ran.spawnError})`);
    if (ran.code !== 0) throw new Error(`npm install ${agent.packageName}@${agent.version} failed: ${lines(ran.stderr.toString('utf8')).filter((l) => !l.startsWith('npm http')).slice(-3).join(' ')}`);
    const installed = JSON.parse(readFileSync(join(staging, 'node_modules', ...agent.packageName.split('/'), 'package.json'), 'utf8')) as { version?: string };
    if (installed.version !== agent.version) throw new Error(`npm installed ${agent.packageName} ${String(installed.version)}, not ${agent.version}`);
    if (!existsSync(agentScript(dataDir, agent, staging))) throw new Error(`${agent.packageName}@${agent.version} has no ${agent.script}`);
    renameSync(staging, dir);
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    throw err;
  }
  return installedAgent(dataDir, agent)!;
}

/** npm's lines of output, without the blank ones. */
function lines(text: string): string[] {
  return text.split('\n').map((l) => l.trim()).filter((l) => l !== '');
}
