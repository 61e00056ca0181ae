// A folder's threads as the window works with them: list, open, send, stop, approvals,
// checkpoints and the usage report (SPEC §6, §8, §17).

import type { ApprovalDecision } from '../../core/agent/types';
import { checkedModelSpec } from '../base/flag-checks';
import { expandInput, isInputError, messageText } from '../commands/person-input';
import { listCommands, type CommandSources } from '../commands/slash-commands';
import { ContractError } from '../contract';
import { budgetReport } from '../usage/budget-tree';
import { usageReport } from '../usage/usage-report';
import { goalPrompt } from '../session/goal-start';
import { ok, type HandlersFor, type WindowServices } from './handlers';

export function threadHandlers(w: WindowServices): HandlersFor<'threads.'> & HandlersFor<'usage.'> & HandlersFor<'commands.'> & HandlersFor<'approvals.'> & HandlersFor<'checkpoints.'> {
  const { settings, audit, extensions } = w.session;
  const { threads, threadTitles, terminals, approvals, checkpoints, overrides, modes } = w;
  const commandSources: CommandSources = { mcp: extensions.hub, skills: () => extensions.extensions.skills(), commands: () => extensions.extensions.commands() };
  return {
    'threads.list': async () => threads.list(),
    'usage.report': async ({ by, since }) => usageReport(audit.ledger, threadTitles, { by, ...(since !== undefined ? { since } : {}) }),
    'usage.budgetTree': async () => budgetReport(audit.ledger, threadTitles, settings.raw(), { live: audit.budgets.live() }),
    'threads.create': async ({ title, agent }) => {
      const made = threads.create(title);
      if (agent === undefined) return made;
      try {
        await w.agents.created(made.id, agent);
      } catch (err) {
        // An agent that cannot be had leaves no empty thread behind.
        await threads.delete(made.id);
        throw err;
      }
      return made;
    },
    'threads.search': async ({ query }) => threads.search(query),
    'threads.get': async ({ threadId, refresh }) => {
      const view = threads.get(threadId);
      // Only an opening is "seen": a re-read while it runs would hide its finish from the Agents view.
      if (refresh !== true) {
        threads.markSeen(threadId);
        // Opened by the person: what it spends unattended starts again (SPEC §26).
        audit.budgets.touched(threadId);
      }
      return view.contextWindow > 0 ? view : { ...view, contextWindow: overrides.contextWindowNow() };
    },
    'threads.earlier': async ({ threadId, cursor }) => threads.earlier(threadId, cursor),
    'threads.toolCall': async ({ threadId, index, toolCallId, parentToolCallId }) => threads.toolCall(threadId, index, toolCallId, parentToolCallId),
    'threads.rename': async ({ threadId, title }) => (threads.rename(threadId, title), ok),
    'threads.delete': async ({ threadId }) => {
      await threads.delete(threadId);
      await w.agents.forget(threadId);
      await terminals.close(threadId);
      return ok;
    },
    'threads.send': async ({ threadId, text, attachments }) => {
      const outcome = await expandInput(text, { ...commandSources, files: w.files }).catch((err: unknown) => {
        throw isInputError(err) ? new ContractError(err.message, 'bad_request') : err;
      });
      switch (outcome.kind) {
        case 'compact':
          await threads.compact(threadId);
          return { ...ok, note: 'Compacting the conversation…' };
        case 'clear':
          return { ...ok, threadId: threads.create().id, note: 'Started a new thread.' };
        case 'model': {
          checkedModelSpec(outcome.model);
          if (overrides.flags.model) throw new ContractError('the model is set by --model for this session; /model cannot change it', 'bad_request');
          await settings.update({ model: outcome.model });
          return { ...ok, note: `Model: ${outcome.model}` };
        }
        case 'mode':
          await modes.set(outcome.mode);
          return { ...ok, note: `Mode: ${outcome.mode}` };
        case 'goal':
          // The agent drafts; nothing starts until the person accepts the card (threads.startGoal).
          return { ...ok, goalDraft: await threads.draftGoal(threadId, outcome.objective) };
      }
      await w.agents.ready(threadId);
      return { ...ok, ...(await threads.send(threadId, messageText(outcome), attachments, text, outcome.turn)) };
    },
    'threads.prepare': async ({ threadId }) => (await w.agents.prepare(threadId), ok),
    'threads.startGoal': async ({ threadId, draft }) => {
      const goal = await threads.startGoal(threadId, draft);
      // Titled by its objective as `run --goal`'s and ACP's goal threads are (not by the command that asked for it).
      await threads.send(threadId, goalPrompt(goal), undefined, `Goal: ${goal.objective}`);
      return ok;
    },
    'threads.dismissGoal': async ({ threadId }) => (threads.dismissGoalDraft(threadId), ok),
    'commands.list': async () => listCommands(commandSources),
    'threads.cancelQueued': async ({ threadId, queuedId }) => (threads.cancelQueued(threadId, queuedId), ok),
    'threads.sendQueuedNow': async ({ threadId, queuedId }) => (await threads.sendQueuedNow(threadId, queuedId), ok),
    'threads.stop': async ({ threadId }) => (await threads.stop(threadId), ok),
    'threads.retry': async ({ threadId }) => (await threads.retry(threadId), ok),
    'threads.allowOnce': async ({ threadId, callId }) => (threads.allowOnce(threadId, callId), ok),
    'threads.attachment': async ({ threadId, index, name }) => threads.attachment(threadId, index, name),
    'threads.readArchive': async ({ threadId, path }) => ({ text: await threads.readThreadFile(threadId, path) }),

    'approvals.decide': async ({ threadId, toolCallId, parentToolCallId, decision }) => {
      audit.budgets.touched(threadId);
      if (decision.type === 'approve' && decision.alwaysAllow) {
        // Added to the rules as they are in the file now (another window may have changed them).
        await settings.addRule(decision.alwaysAllow);
      }
      const core: ApprovalDecision =
        decision.type === 'approve'
          ? { type: 'approve', ...(decision.answeredIn !== undefined ? { answeredIn: decision.answeredIn } : {}) }
          : decision.type === 'edit'
            ? { type: 'edit', args: decision.args }
            : decision;
      if (!approvals.resolve(threadId, toolCallId, core, parentToolCallId)) throw new ContractError('that approval is no longer pending', 'not_found');
      return ok;
    },

    'checkpoints.changes': async ({ threadId }) => checkpoints.changes(threadId),
    'checkpoints.restoreToMessage': ({ threadId, turn, resolution }) => checkpoints.restoreToMessage(threadId, turn, resolution),
    'checkpoints.rewindToMessage': ({ threadId, turn, resolution }) => checkpoints.rewindToMessage(threadId, turn, resolution),
    'checkpoints.undoRestore': ({ threadId, checkpointId, resolution }) => checkpoints.undoRestore(threadId, checkpointId, resolution),
    'checkpoints.revertFile': ({ threadId, path, resolution }) => checkpoints.revertFile(threadId, path, resolution),
    'checkpoints.revertHunk': ({ threadId, path, hunkId, resolution }) => checkpoints.revertHunk(threadId, path, hunkId, resolution),
    'checkpoints.markReviewed': async ({ threadId, hunkId, reviewed }) => (checkpoints.markReviewed(threadId, hunkId, reviewed), ok),
  };
}
