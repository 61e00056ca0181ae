// The message box's buttons: Attach files, Run N candidates… (and its dialog), Review (the
// approvals waiting: it leads to the first), Stop, Send.

import { useState } from 'react';
import type { SandboxPlaceDto } from '../../../../src-main/app/contract';
import { Icon, IconButton } from '../Icon';
import { RunCandidatesDialog } from '../RunCandidatesDialog';

interface MessageActionsProps {
  attach: React.ReactNode;
  pendingApprovals: number;
  running: boolean;
  canSend: boolean;
  onStop(): void;
  onSend(): void;
  /** What Run N candidates… pursues (the box's text), and where. */
  goal: string;
  sandbox: Pick<SandboxPlaceDto, 'provider' | 'label'> | undefined;
}

function focusFirstApproval(): void {
  const button = document.querySelector<HTMLButtonElement>('[role="log"] [role="group"][aria-label="Approve tool call"] button.btn-primary');
  button?.scrollIntoView({ block: 'nearest' });
  button?.focus();
}

export function MessageActions({ attach, pendingApprovals, running, canSend, onStop, onSend, goal, sandbox }: MessageActionsProps): React.JSX.Element {
  const [runningCandidates, setRunningCandidates] = useState(false);
  return (
    <div className="message-actions">
      {attach}
      {/* An icon beside Attach files: the row keeps its room for Stop and Send at every size. */}
      <IconButton icon="branch" aria-label="Run N candidates…" title="Run N candidates… — the goal as several attempts on worktrees, ranked by evidence" onClick={() => setRunningCandidates(true)} />
      {pendingApprovals > 0 ? (
        <button
          type="button"
          className="btn btn-warn"
          onClick={focusFirstApproval}
          title="Go to the first call waiting for your approval"
          aria-label={pendingApprovals === 1 ? 'Review approval' : `Review approvals (${pendingApprovals})`}
        >
          <Icon name="alert" size={14} />
          Review{pendingApprovals > 1 ? ` (${pendingApprovals})` : ''}
        </button>
      ) : null}
      {running ? (
        <button type="button" className="btn btn-danger" onClick={onStop}>
          <Icon name="stop" size={14} />
          Stop
        </button>
      ) : null}
      <button type="button" className="btn btn-primary" onClick={onSend} disabled={!canSend}>
        <Icon name="send" size={14} />
        Send
      </button>
      {runningCandidates ? <RunCandidatesDialog goal={goal} sandbox={sandbox} onClose={() => setRunningCandidates(false)} /> : null}
    </div>
  );
}
