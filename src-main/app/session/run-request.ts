// What a run that no window drives is asked with (headless-run.ts): the request, who hears of
// it and answers its approvals, and the host's context it runs in.

import type Database from 'better-sqlite3';
import type { BudgetNode, BudgetScope } from '../contract/budgets';
import type { ApprovalBroker } from '../../core/agent/middleware/approval';
import type { ApprovalMode } from '../../core/agent/permissions/modes';
import type { AgentEvent } from '../../core/agent/types';
import type { SecretStore } from '../base/secret-store';
import type { GivenSessionFlags } from '../base/session-flags';
import type { AttachmentInput } from '../contract/attachments';
import type { FolderSessionPool } from './session-pool';

/** A run a client asks for: its folder, prompt and mode, and the session flags it was given (contract/session-flag-table.ts). */
export interface HeadlessRunRequest extends GivenSessionFlags {
  /** A local path or an `ssh://` URL. */
  folder: string;
  prompt: string;
  /** Files sent with the prompt, as the window sends them (an Agent Protocol run's inline media). */
  attachments?: readonly AttachmentInput[];
  /** Continue this thread (`--thread`); default a new one. */
  threadId?: string;
  /** The approval mode: fixed (`--mode`), or the folder's saved one as the window and an editor follow it. */
  mode: ApprovalMode | 'saved';
  /** Run the folder's subagent of this name as the agent (its prompt, tools and model); default Deepdesk's own agent. */
  agent?: string;
  /** The run's own caps (`--max-cost`, SPEC §26). */
  budget?: BudgetNode;
  /** The command's working folder. */
  cwd: string;
  /** The command's environment: keys, base URLs, what commands and hooks inherit. */
  env: NodeJS.ProcessEnv;
  /** With `goal` and no `verify`: accept the drafted goal without asking (`--yes`, or no terminal). */
  acceptDraft?: boolean;
  /** The candidates' set this run is one of (SPEC §21): its calls hold the set's one budget too. */
  budgetSet?: BudgetScope['set'];
  /** A candidate's own instruction (`run --candidates … --prompt P`): added after the goal in its first message. */
  instruction?: string;
}

export interface HeadlessRunIo {
  /** One line for the person (a problem with a file, a server that did not start). */
  say(line: string): void;
  /** Every event of the thread, as the harness gives it. */
  emit(event: AgentEvent): void;
  /** Who answers this run's approvals. */
  broker: ApprovalBroker;
}

export interface HeadlessRunContext {
  dataDir: string;
  db: Database.Database;
  version: string;
  /** The data folder's keys (Settings' model keys, MCP sign-ins). */
  secrets: SecretStore;
  /** `host --reviewer` (SPEC §23): the run's reviewer when its own flags name none. */
  reviewer?: string;
  /** The host's warm sessions (session-pool.ts); absent: a run opens its folder's session and closes it. */
  sessions?: FolderSessionPool;
}
