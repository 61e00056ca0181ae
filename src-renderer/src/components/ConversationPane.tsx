// The centre column: the thread's title and meter, the conversation, the message box.

import { sourceLabel, ThreadSourceContext, type ThreadSource } from '../lib/thread-source';
import { runsInShortText, runsInText, shortSandboxId, type SandboxPlaceDto } from '../../../src-main/app/contract';
import { useCheckpoints } from '../state/checkpoints-context';
import type { ShownAttachment } from '../lib/thread-reducer';
import type { ThreadSession } from '../state/use-thread-session';
import { ApprovalAnnouncer } from './ApprovalAnnouncer';
import { ContextMeter } from './ContextMeter';
import { Conversation, type RunFacts } from './Conversation';
import { ErrorBoundary } from './ErrorBoundary';
import { MessageBox } from './MessageBox';
import { ReviewedCalls } from './ReviewedCalls';
import { GoalBadge, GoalDraftCard } from './GoalCard';
import { RunCandidatesOnGoal } from './RunCandidatesDialog';
import { WorktreeBar } from './WorktreeBar';
import { SandboxLost, SandboxThreadButton, useSandboxStatus } from './SandboxThreadDialog';
import { useWorktree } from '../state/use-worktree';

interface ConversationPaneProps {
  /** Where the thread came from, when not this window (thread-source.ts). */
  source?: ThreadSource | undefined;
  session: ThreadSession;
  /** The open thread's run as the thread list has it (queued for a slot, when it started), and its agent when it is another one. */
  run: (RunFacts & { agent?: string | undefined }) | undefined;
  title: string;
  noModel: boolean;
  settingsLoaded: boolean;
  onOpenSettings(section?: string): void;
  openThreadFile(path: string, title: string): void;
  openAttachment(file: ShownAttachment): void;
  /** Hidden while the Usage view has its place (it stays mounted: its draft, scroll and approvals). */
  hidden?: boolean;
  /** The provider's sandbox the folder's threads run in (SPEC §18). */
  sandbox?: SandboxPlaceDto | undefined;
}

export function ConversationPane({ session, run, source, title, noModel, settingsLoaded, onOpenSettings, openThreadFile, openAttachment, hidden = false, sandbox }: ConversationPaneProps): React.JSX.Element {
  const { state } = session;
  // A worktree thread not in a sandbox yet can continue in one (SPEC §18).
  const worktree = useWorktree().info;
  // After "Restore files and conversation" the message goes back into the box.
  const refill = useCheckpoints()?.refill ?? null;
  // A sandbox gone or removed: said, with the ways forward (a new sandbox, this computer).
  const sandboxStatus = useSandboxStatus(sandbox?.sandboxId);
  const lost = sandbox !== undefined && (sandboxStatus?.state === 'gone' || sandboxStatus?.state === 'removed') ? sandboxStatus : undefined;
  const disabledReason = !settingsLoaded ? 'Loading settings…' : noModel ? 'Set a model in Settings to send messages.' : null;
  return (
    <section className="conversation-pane" aria-label="Chat" data-region="Chat" hidden={hidden}>
      <div className="conversation-head">
        <h1 className="thread-heading" title={title}>
          {title}
        </h1>
        {source !== undefined ? (
          <span className="badge thread-source" title="This thread was started from another tool, not in this window">
            From {sourceLabel(source)}
          </span>
        ) : null}
        {sandbox ? (
          // The short ID shows; the whole one is in its tooltip and its accessible name.
          <span className="badge thread-runs-in mono" role="note" aria-label={lost ? `${lost.state === 'gone' ? 'Gone' : 'Removed'}: ${sandbox.label} sandbox ${sandbox.sandboxId}` : runsInText(sandbox)} title={lost ? lost.message : `Its commands and files are in the ${sandbox.label} sandbox ${sandbox.sandboxId}`}>
            {lost ? `${lost.state === 'gone' ? 'Gone' : 'Removed'}: ${sandbox.label} sandbox ${shortSandboxId(sandbox.sandboxId)}` : runsInShortText(sandbox)}
          </span>
        ) : worktree !== null ? (
          <SandboxThreadButton kind="continue" />
        ) : null}
        <ReviewedCalls items={state.items} threadId={session.threadId} />
        {state.goal ? <GoalBadge goal={state.goal} /> : null}
        {state.goal ? <RunCandidatesOnGoal goal={state.goal} sandbox={sandbox} /> : null}
        <ContextMeter tokens={state.contextTokens} window={state.contextWindow} usage={state.usage} lastRun={state.lastRun} />
      </div>
      {lost ? <SandboxLost status={lost} /> : null}
      <WorktreeBar thread={{ id: session.threadId, running: state.running, send: session.send }} />
      <ErrorBoundary name="Conversation">
        <ThreadSourceContext.Provider value={source}>
        <Conversation
          state={state}
          run={run}
          approvals={session.approvals}
          loading={session.loading}
          noModel={noModel}
          decidedPreviews={session.decidedPreviews}
          onDecide={session.decide}
          onRetry={() => void session.retry()}
          onStop={() => void session.stop()}
          onOpenSettings={onOpenSettings}
          openThreadFile={openThreadFile}
          onSendQueuedNow={session.sendQueuedNow}
          onCancelQueued={session.cancelQueued}
          onLoadEarlier={session.loadEarlier}
          loadingEarlier={session.loadingEarlier}
          fullToolCall={session.fullToolCall}
          attachment={session.attachment}
          openAttachment={openAttachment}
        />
        </ThreadSourceContext.Provider>
      </ErrorBoundary>
      <ApprovalAnnouncer approvals={session.approvals} />
      {session.goalDraft !== null ? <GoalDraftCard key={session.goalDraft.objective} draft={session.goalDraft} onAccept={session.acceptGoal} onDismiss={session.dismissGoal} /> : null}
      <ErrorBoundary name="Message box">
        <MessageBox
          running={state.running}
          queued={state.running && run?.queued === true}
          disabledReason={disabledReason}
          onSend={session.send}
          onStop={() => void session.stop()}
          focusKey={session.threadId}
          pendingApprovals={session.approvals.length}
          refill={refill}
          sandbox={sandbox}
          otherAgent={run?.agent !== undefined}
        />
      </ErrorBoundary>
    </section>
  );
}
