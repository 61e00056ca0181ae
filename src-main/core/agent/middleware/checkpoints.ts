// Checkpoints (SPEC §8): every step of the agent or a subagent that can change the
// project folder (write_file, edit_file, execute) runs between two snapshots, and what it
// changed becomes a checkpoint of the thread, belonging to the user message it answers.
// Runs inside approval, so it sees the arguments that actually run.

import { HISTORY_PREFIX, LARGE_RESULTS_PREFIX, MEMORIES_PREFIX } from '../../backends/mounts/mounts';
import { normalizeVirtualPath } from '../../backends/paths';
import type { CheckpointRecorder, StepScope } from '../../checkpoints/recorder';
import { changeStatus, toVirtual } from '../../checkpoints/types';
import type { ChatMessage, ToolCall } from '../../models/types';
import type { Middleware } from '../middleware';
import { handOn, rootRun } from '../run-context';
import { latestPersonMessage } from '../notes';
import { modelName } from '../model-call';

/** Virtual folders that are not the project folder on disk. */
const NOT_ON_DISK = [MEMORIES_PREFIX, LARGE_RESULTS_PREFIX, HISTORY_PREFIX];

export function checkpointsMiddleware(recorder: CheckpointRecorder): Middleware {
  return {
    name: 'checkpoints',
    async wrapToolCall(ctx, { call }, next) {
      const scope = call.parseError === undefined ? scopeOf(call) : null;
      if (scope === null) return next(call);
      const root = rootRun(ctx);
      // The person's message it answers (a note for the model is not one).
      const messageIndex = latestPersonMessage(root.state.messages);
      const message = root.state.messages[messageIndex];
      const outcome = await recorder.step(
        {
          threadId: root.threadId,
          messageIndex: messageIndex >= 0 ? messageIndex : null,
          messageLine: message ? firstLine(message.content) : '',
          toolCallId: call.id,
          tool: call.name,
          model: modelName(ctx.model.id),
        },
        scope,
        async (attribution) => {
          // Handed to this call's tool context (loop.ts), so the command it runs applies its layer through it.
          return handOn(ctx, call.id, { attribution }, () => next(call));
        },
      );
      if (!outcome.checkpoint) return outcome.result;
      const files = outcome.changes.map((c) => ({ path: toVirtual(c.path), status: changeStatus(c) }));
      // Reported after the step's tool_result (the loop emits follow-ups right after it).
      return { ...outcome.result, followUp: [...(outcome.result.followUp ?? []), { type: 'checkpoint', id: outcome.checkpoint.id, files }] };
    },
  };
}

/** The folder paths a call may change: its file for write/edit, a command's (which tells how they can be seen); null for neither. */
function scopeOf(call: ToolCall): StepScope | null {
  if (call.name === 'execute') return 'command';
  if (call.name !== 'write_file' && call.name !== 'edit_file') return null;
  const raw = (call.args as { file_path?: unknown } | undefined)?.file_path;
  if (typeof raw !== 'string') return null;
  const checked = normalizeVirtualPath(raw);
  if (!checked.ok || checked.path === '/') return null;
  const p = checked.path;
  if (NOT_ON_DISK.some((prefix) => p.startsWith(prefix) || p === prefix.slice(0, -1))) return null;
  return [p.slice(1)];
}

/** A message's first line of text: what a checkpoint is named by. */
export function firstLine(content: ChatMessage['content']): string {
  const text = typeof content === 'string' ? content : content.map((p) => (p.type === 'text' ? p.text : '')).join(' ');
  return (text.trim().split('\n')[0] ?? '').trim();
}
