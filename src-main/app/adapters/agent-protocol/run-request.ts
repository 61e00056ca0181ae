// A run request of the Agent Protocol (SPEC §19) checked before anything starts: its assistant,
// and the host run it asks for — the folder (one the listener allows), the mode, the session
// flags `configurable` may name, a goal, the person's message.

import { isAbsolute } from 'node:path';
import type { SubagentSpec } from '../../../core/agent/middleware/subagents';
import type { ApprovalMode } from '../../../core/agent/permissions/modes';
import { configurableFlags } from '../../base/session-flag-schemas';
import { overSettingsFlags, type OverSettingsFlags } from '../../base/session-flags';
import type { AttachmentInput } from '../../contract/attachments';
import type { StartRunParams } from '../../session/run-requests';
import { resolveAssistant, type ResolvedAssistant } from './assistants-routes';
import type { ProtocolContext } from './context';
import { ProtocolHttpError } from './http';
import { lastPersonMessage } from './messages';
import type { MultitaskStrategy } from './run-records';
import type { StreamMode } from './run-stream';

/** What a run is asked to do (the checked body of a run request). */
export interface RunRequest {
  assistant_id: string;
  input?: unknown;
  command?: { resume?: unknown } | undefined;
  config?: { configurable?: Record<string, unknown> | undefined } | undefined;
  metadata?: Record<string, unknown> | undefined;
  stream_mode: StreamMode[];
  multitask_strategy: MultitaskStrategy;
  if_not_exists?: 'reject' | 'create' | undefined;
  on_completion?: 'delete' | 'keep' | undefined;
  /** Who sent it, in words for the window ("a page at ORIGIN", its user agent): who answered an approval, who stopped a run. */
  client?: string | undefined;
}

/** The host run a run asks for: `saved` mode when the run names none; `agent`, a subagent's name. */
export type RunStart = { folder: string; prompt: string; attachments: AttachmentInput[]; mode: ApprovalMode | 'saved'; agent?: string; goal?: string; verify?: string[]; acceptDraft?: boolean } & OverSettingsFlags;

/** Which folders a listener's runs may work in. */
export type ListenerFolders = Pick<ProtocolContext, 'defaultFolder' | 'folderRefusal'>;

export function checkedStart(request: RunRequest, subagent: SubagentSpec | undefined, folders: ListenerFolders): RunStart {
  const configurable = request.config?.configurable ?? {};
  const folder = stringField(configurable, 'folder') ?? folders.defaultFolder;
  if (folder === undefined) throw new ProtocolHttpError(422, 'No folder to work in: pass config.configurable.folder (an absolute path), or set Settings › Agent Protocol › Default folder (or start the host with --folder DIR).');
  if (!isAbsolute(folder)) throw new ProtocolHttpError(422, 'config.configurable.folder must be an absolute path.');
  const refusal = folders.folderRefusal(folder);
  if (refusal !== undefined) throw new ProtocolHttpError(403, refusal);
  // None named: the folder's saved mode, as the window and an editor follow it.
  const mode = stringField(configurable, 'mode') ?? 'saved';
  if (mode !== 'saved' && !(['ask', 'edit', 'auto', 'plan'] as const).includes(mode as ApprovalMode)) throw new ProtocolHttpError(422, 'config.configurable.mode must be ask, edit, auto or plan.');
  // The session flags a run may name there (THE table's `configurable` rows: the model).
  const flags = configurableFlags(configurable, (message) => new ProtocolHttpError(422, message));
  if (flags.model !== undefined && !/^[\w.-]+:.+$/.test(flags.model)) throw new ProtocolHttpError(422, 'config.configurable.model must be provider:model.');
  // A goal (SPEC §21): `config.configurable.goal` (the objective) and `verify` (commands; none: the
  // agent drafts them, accepted as drafted since nobody is at a terminal). The message is then optional.
  if (flags.goal !== undefined && flags.goal.trim() === '') throw new ProtocolHttpError(422, 'config.configurable.goal must be the objective.');
  const goal = flags.goal !== undefined ? { goal: flags.goal, acceptDraft: true, ...(flags.verify !== undefined ? { verify: flags.verify } : {}) } : {};
  if (flags.verify !== undefined && flags.goal === undefined) throw new ProtocolHttpError(422, 'config.configurable.verify goes with config.configurable.goal.');
  const input = request.input;
  const messages = input !== null && typeof input === 'object' ? (input as { messages?: unknown }).messages : undefined;
  if (messages === undefined && flags.goal === undefined) throw new ProtocolHttpError(422, 'input.messages: a run needs the person\'s message (or command.resume).');
  const { prompt, attachments } = messages === undefined ? { prompt: '', attachments: [] } : lastPersonMessage(messages, 'input.messages');
  return { folder, prompt, attachments, mode: mode as ApprovalMode | 'saved', ...overSettingsFlags(flags), ...goal, ...(subagent !== undefined ? { agent: subagent.name } : {}) };
}

/** The host run a start asks for on `threadId`: in its folder with the host's environment, no mounts, no trust, its approvals asked of whoever follows it. */
export function hostRunParams(start: RunStart, threadId: string, env: NodeJS.ProcessEnv, client: string | undefined): StartRunParams {
  const { folder, prompt, attachments, mode, agent, ...flags } = start;
  return {
    request: {
      folder,
      prompt,
      threadId,
      mode,
      ...(attachments.length > 0 ? { attachments } : {}),
      ...flags,
      ...(agent !== undefined ? { agent } : {}),
      mounts: [],
      mcpConfig: [],
      trust: false,
      cwd: folder,
      env,
    },
    approve: 'ask',
    interactive: true,
    detach: true,
    source: { kind: 'protocol', ...(client !== undefined ? { client } : {}) },
  };
}

/** The run's assistant; an unknown one is a 404 worded as the reference's for a run. */
export function assistantOf(context: Pick<ProtocolContext, 'dataDir' | 'defaultFolder' | 'runs'>, id: string): ResolvedAssistant {
  try {
    return resolveAssistant(context, id);
  } catch (err) {
    if (err instanceof ProtocolHttpError && err.status === 404) {
      throw new ProtocolHttpError(404, `No assistant found for "${id}". Make sure the assistant ID is for a valid assistant or a valid graph ID.`);
    }
    throw err;
  }
}

function stringField(record: Record<string, unknown>, key: string): string | undefined {
  const value = record[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value === '') throw new ProtocolHttpError(422, `config.configurable.${key} must be a string.`);
  return value;
}
