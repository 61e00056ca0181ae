// Issue 19: what a person's hooks cost per tool call. The agent loop with the instant
// in-process model (ls steps, no thread history) without hooks, with one trivial PreToolUse
// hook (`exit 0`) matching every tool, and with a trivial PreToolUse and PostToolUse each:
// the difference per step is the hooks' overhead per call (process start through the
// supervisor, stdin JSON, exit, tree check).

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createAgentDefinition } from '../../src-main/core/agent/create-agent';
import { runAgent } from '../../src-main/core/agent/loop';
import type { PermissionRule } from '../../src-main/core/agent/permissions/rules';
import { newThreadState } from '../../src-main/core/agent/types';
import { createDefaultMounts } from '../../src-main/core/backends/mounts/mounts';
import { openDatabase } from '../../src-main/core/backends/store/store-db';
import { loadHooks } from '../../src-main/core/extensions/hooks/config';
import type { HookEntry } from '../../src-main/core/extensions/hooks/types';
import { ReadGuard } from '../../src-main/core/tools/read-guard';
import { InstantModel, makeWorkspace } from './harness';
import { errorText, formatMs, formatRatio, median, percentile, withTimeout } from './measure';
import type { BenchOptions } from './options';
import { progress, verdict, type Report } from './report';

const STEPS = 30;
/** Issue 66: a trivial hook costs at most this over a bare spawn of the same script. */
const OVER_SPAWN_MS = 3;
const ALLOW_ALL: PermissionRule[] = [{ tools: ['*'], decision: 'allow' }];

/** Per-step milliseconds (median over the steps after the first, over the runs) with these hooks. */
async function perStep(hooks: readonly HookEntry[], runs: number, ws: { folder: string; dataDir: string }): Promise<number[]> {
  const steps: number[] = [];
  const db = openDatabase(path.join(ws.dataDir, 'deepdesk.db'));
  try {
    for (let run = 0; run < runs + 1; run++) {
      const model = new InstantModel(STEPS);
      const definition = createAgentDefinition({
        model,
        backend: createDefaultMounts({ folder: ws.folder, db, execute: false }).backend,
        rules: () => ALLOW_ALL,
        broker: { decide: async () => ({ type: 'reject', message: 'benchmark' }) },
        ...(hooks.length > 0 ? { hooks: { hooks: () => hooks, folder: ws.folder } } : {}),
      });
      const result = await withTimeout(
        runAgent(definition, newThreadState(`bench-hooks-${run}`), { role: 'user', content: 'list the folders' }, { emit: () => undefined, persist: async () => undefined, guard: new ReadGuard() }),
        120_000,
        'agent run',
      );
      if (result.reason !== 'completed') throw new Error(`run ended with ${result.reason}: ${result.error?.message ?? ''}`);
      // The first run warms up (the login PATH lookup, module loading).
      if (run === 0) continue;
      for (let k = 1; k + 1 < model.callTimes.length; k++) steps.push(model.callTimes[k + 1]! - model.callTimes[k]!);
    }
  } finally {
    db.close();
  }
  return steps;
}

/** A bare spawn of the hook's script (`/bin/sh -c 'exit 0'`, its JSON on stdin): the floor of a hook. */
function bareSpawn(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', 'exit 0'], { stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdout.resume();
    child.stderr.resume();
    child.stdin.on('error', () => undefined);
    child.stdin.end('{"hook_event_name":"PreToolUse","tool_name":"ls","tool_input":{}}\n');
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}`))));
  });
}

async function spawnFloor(runs: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs + 1; i++) {
    const start = performance.now();
    await bareSpawn();
    if (i > 0) times.push(performance.now() - start);
  }
  return median(times);
}

function trivialHooks(dataDir: string, events: readonly string[]): HookEntry[] {
  const config = Object.fromEntries(events.map((event) => [event, [{ hooks: [{ type: 'command', command: 'exit 0' }] }]]));
  fs.writeFileSync(path.join(dataDir, 'hooks.json'), JSON.stringify({ hooks: config }));
  return loadHooks({ dataDir, isTrusted: () => false }).hooks;
}

export async function benchHooks(report: Report, options: BenchOptions): Promise<void> {
  const section = report.section(`Issue 19 · hook overhead per tool call (instant model, ${STEPS} ls steps, hooks matching every tool)`);
  progress('hooks: agent loop without and with trivial hooks');
  const ws = makeWorkspace();
  try {
    const runs = Math.min(options.runs, 3);
    const none = await perStep([], runs, ws);
    const base = median(none);
    section.rows.push({ name: 'per step, no hooks', ours: `${formatMs(base)}/step` });
    const floors: number[] = [];
    for (const [label, events] of [
      ['one PreToolUse hook (`exit 0`)', ['PreToolUse']],
      ['a PreToolUse and a PostToolUse hook (`exit 0` each)', ['PreToolUse', 'PostToolUse']],
    ] as const) {
      floors.push(await spawnFloor(STEPS));
      const hooked = await perStep(trivialHooks(ws.dataDir, events), runs, ws);
      floors.push(await spawnFloor(STEPS));
      const floor = median(floors);
      // Pre and Post run one after the other around the call: the overhead is per hook.
      const perHook = (median(hooked) - base) / events.length;
      section.rows.push({
        name: `  added by ${label}, per hook`,
        ours: `${formatMs(perHook)}/hook (+${formatMs(perHook - floor)}; p95 step ${formatMs(percentile(hooked, 95))})`,
        floor: `${formatMs(floor)} bare spawn`,
        ratio: formatRatio(perHook, floor),
        target: `≤ spawn + ${OVER_SPAWN_MS} ms`,
        result: verdict(perHook - floor <= OVER_SPAWN_MS),
      });
    }
  } catch (err) {
    section.rows.push({ name: 'hook overhead', ours: `error: ${errorText(err)}` });
  } finally {
    ws.cleanup();
  }
  section.notes.push("floor: a bare child_process spawn of `/bin/sh -c 'exit 0'` with the hook's JSON on stdin, measured before and after each hooked run");
  section.notes.push('a hook is `/bin/sh -c COMMAND` started through the process supervisor (scrubbed environment, own process group, tree check on exit), unsandboxed, in the folder; hooks of one event run in parallel');
}
