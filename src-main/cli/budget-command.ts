// `deepdesk budget [show] [--folder DIR] [--json]` and `deepdesk budget set SCOPE KEY VALUE`
// (SPEC §26): the budget tree — the workspace, its folders, their threads and each thread's
// fan-outs — with what each node spent (the ledger's), its cap and a run paused at one; and one
// cap set in settings.json. A host running meanwhile sees the change and a run paused at that
// cap goes on.

import { resolve } from 'node:path';
import { databasePath, resolveDataDir } from '../app/base/data-dir';
import { budgetsWith } from '../app/contract';
import type { BudgetTreeNode } from '../app/contract/usage';
import { holdDataFolderSecrets } from '../app/settings/data-folder-secrets';
import { readSavedSettings, SettingsService } from '../app/settings/settings-service';
import { RunRecords } from '../app/threads/run-records';
import { ThreadStore } from '../app/threads/thread-store';
import { budgetReport } from '../app/usage/budget-tree';
import { ledgerPrices } from '../app/usage/usage-report';
import { openDatabase } from '../core/backends/store/store';
import { formatUsd } from '../core/spend/spend-tree';
import { ledgerReader } from '../core/telemetry/usage-ledger';
import { terminalSafe, terminalSafeJson } from '../core/text/terminal-safe';
import { COMMAND_OPTIONS } from './command-table';
import { parseCommand, UsageError } from './usage';

export interface BudgetIo {
  stdout: NodeJS.WritableStream;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

export async function budgetCommand(argv: string[], io: BudgetIo = { stdout: process.stdout }): Promise<number> {
  const { values, positionals } = parseCommand(argv, COMMAND_OPTIONS.budget);
  const [sub = 'show', ...args] = positionals;
  const dataDir = resolveDataDir(values['data-dir'], io.env);
  if (sub === 'set') {
    if (args.length !== 3) throw new UsageError('budget set takes SCOPE KEY VALUE (SCOPE: workspace, folder:DIR, thread or thread:ID; VALUE a number, or none)');
    const [scopeArg, key, raw] = args as [string, string, string];
    const scope = scopeArg.startsWith('folder:') ? `folder:${resolve(io.cwd ?? process.cwd(), scopeArg.slice('folder:'.length))}` : scopeArg;
    const value = raw === 'none' ? undefined : Number(raw);
    if (value !== undefined && !Number.isFinite(value)) throw new UsageError(`VALUE must be a number or none (got '${raw}')`);
    const secrets = holdDataFolderSecrets(dataDir);
    const settings = new SettingsService(dataDir, secrets.store);
    try {
      let budgets;
      try {
        budgets = budgetsWith(settings.raw().budgets, scope, key, value);
      } catch (err) {
        throw new UsageError(err instanceof Error ? (err.message.startsWith('[') ? `${key} must be ${describeKey(key)} (got '${raw}')` : err.message) : String(err));
      }
      await settings.update({ budgets });
      io.stdout.write(`${scope} ${key}: ${value === undefined ? 'none' : key.endsWith('Usd') ? formatUsd(value) : value.toLocaleString('en-US')}\n`);
      return 0;
    } finally {
      settings.close();
      secrets.release();
    }
  }
  if (sub !== 'show') throw new UsageError(`budget takes show or set (got '${sub}')`);
  if (args.length > 0) throw new UsageError(`unexpected arguments: ${args.join(' ')}`);
  const db = openDatabase(databasePath(dataDir));
  try {
    const saved = readSavedSettings(dataDir);
    const records = new RunRecords(db);
    const tree = budgetReport(ledgerReader(db, ...ledgerPrices(() => saved)), new ThreadStore(db), saved, {
      paused: (threadId) => {
        const record = records.get(threadId);
        return record?.state === 'budget' ? (record.message ?? 'paused at a budget') : undefined;
      },
      ...(values.folder !== undefined ? { folder: resolve(io.cwd ?? process.cwd(), values.folder) } : {}),
    });
    io.stdout.write(values.json === true ? terminalSafeJson(tree) + '\n' : treeText(tree));
    return 0;
  } finally {
    db.close();
  }
}

function describeKey(key: string): string {
  return key === 'maxSpawns' ? 'a whole number, 0 or more' : key === 'maxConcurrent' ? 'a whole number from 1 to 64' : key === 'maxTokens' ? 'a whole number above 0' : 'a number above 0';
}

/** One line a node, indented by depth: what it spent, holds and may spend, and a paused line. */
export function treeText(root: BudgetTreeNode): string {
  const lines: string[] = [];
  const walk = (node: BudgetTreeNode, depth: number) => {
    const name = node.kind === 'folder' ? (node.path || '(no folder)') : node.kind === 'thread' ? `thread ${node.id?.slice(0, 8)}${node.label ? ` “${node.label.slice(0, 50)}”` : ''}` : node.kind === 'workspace' ? 'workspace' : (node.id ?? '');
    const parts = [`spent ${formatUsd(node.spentUsd)}`, ...(node.heldUsd > 0 ? [`held ${formatUsd(node.heldUsd)}`] : []), ...(node.capUsd !== null ? [`cap ${formatUsd(node.capUsd)}`] : [])];
    lines.push(`${'  '.repeat(depth)}${terminalSafe(name, { singleLine: true })}: ${parts.join(', ')}${node.paused !== undefined ? ` — ${terminalSafe(node.paused, { singleLine: true })}` : ''}`);
    for (const child of node.children) walk(child, depth + 1);
  };
  walk(root, 0);
  return lines.join('\n') + '\n';
}
