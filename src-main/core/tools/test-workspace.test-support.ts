// A real workspace for tool tests: a temp project folder, a temp SQLite file and the
// default mount table, with a helper that calls a tool the way the agent does.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { createDefaultMounts, type MountOptions, type Mounts } from '../backends/mounts/mounts';
import { openDatabase } from '../backends/store/store';
import type { Sandbox } from '../sandbox/types';
import { filesystemTools } from './filesystem-tools';
import { ReadGuard } from './read-guard';
import { runTool, toolMap } from './run-tool';
import type { ToolOutput } from './tool';

export interface TestWorkspace {
  folder: string;
  dataDir: string;
  mounts: Mounts;
  guard: ReadGuard;
  call(tool: string, args: Record<string, unknown>): Promise<ToolOutput>;
  /** The text of a call. */
  run(tool: string, args: Record<string, unknown>): Promise<string>;
  dispose(): void;
}

/** `folder`: the project folder to use (made by the caller, removed with the workspace); `sandbox`: its commands' OS sandbox. */
export function createTestWorkspace(options: { execute?: boolean; skills?: MountOptions['skills']; extraMounts?: MountOptions['extraMounts']; folder?: string; sandbox?: Sandbox } = {}): TestWorkspace {
  const folder = options.folder ?? mkdtempSync(join(tmpdir(), 'deepdesk-ws-'));
  const dataDir = mkdtempSync(join(tmpdir(), 'deepdesk-data-'));
  const db: Database.Database = openDatabase(join(dataDir, 'deepdesk.db'));
  const mounts = createDefaultMounts({ folder, db, execute: options.execute ?? true, ...(options.sandbox ? { sandbox: options.sandbox } : {}), ...(options.skills ? { skills: options.skills } : {}), ...(options.extraMounts ? { extraMounts: options.extraMounts } : {}) });
  const tools = toolMap(filesystemTools({ execute: options.execute ?? true }));
  const guard = new ReadGuard();
  let n = 0;
  const call = (tool: string, args: Record<string, unknown>) =>
    runTool(tools, tool, args, { backend: mounts.backend, guard, toolCallId: `call-${++n}` });
  return {
    folder,
    dataDir,
    mounts,
    guard,
    call,
    run: async (tool, args) => (await call(tool, args)).text,
    dispose() {
      db.close();
      rmSync(folder, { recursive: true, force: true });
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
