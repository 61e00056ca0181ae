// Asks the person about one paused tool call (the oldest first): approve (optionally always),
// edit the arguments, reject with a message, or answer instead of running it.
// Mounted with key = the call id, so each approval starts with a fresh form.

import { useId, useState } from 'react';
import type { ApprovalDecisionDto, PendingApproval } from '../../../src-main/app/contract';
import { describeLinkTarget } from '../../../src-main/core/agent/permissions/link-target-text';
import { describeRule } from '../lib/rules';
import { commandOf, safeJson } from '../lib/tool-summary';
import { DiffView } from './DiffView';
import { Modal } from './Modal';

interface ApprovalDialogProps {
  approval: PendingApproval;
  /** How many are waiting, this one included. */
  total: number;
  onDecide(decision: ApprovalDecisionDto): Promise<boolean>;
}

export function ApprovalDialog({ approval, total, onDecide }: ApprovalDialogProps): React.JSX.Element {
  const isExecute = approval.toolName === 'execute';
  const linkTarget = describeLinkTarget(approval.toolName, approval.args, approval.resolvedTarget);
  const command = isExecute ? commandOf(approval.args) : null;
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState('');
  const [draftError, setDraftError] = useState<string | null>(null);
  const [reply, setReply] = useState('');
  const [always, setAlways] = useState(false);
  const [busy, setBusy] = useState(false);
  const replyId = useId();
  const editId = useId();

  const decide = async (decision: ApprovalDecisionDto): Promise<void> => {
    if (busy) return;
    setBusy(true);
    const ok = await onDecide(decision);
    if (!ok) setBusy(false);
  };

  const startEdit = (): void => {
    setDraft(command !== null ? command : safeJson(approval.args, 2));
    setDraftError(null);
    setEditing(true);
  };

  const approve = (): void => {
    if (!editing) {
      void decide(always && approval.suggestedRule ? { type: 'approve', alwaysAllow: approval.suggestedRule } : { type: 'approve' });
      return;
    }
    if (command !== null) {
      if (draft.trim() === '') return setDraftError('The command is empty.');
      void decide({ type: 'edit', args: { ...approval.args, command: draft } });
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(draft);
    } catch (err) {
      return setDraftError(`Not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return setDraftError('The arguments must be a JSON object.');
    void decide({ type: 'edit', args: parsed as Record<string, unknown> });
  };

  const reject = (): void => {
    const message = reply.trim();
    void decide(message ? { type: 'reject', message } : { type: 'reject' });
  };

  const respond = (): void => {
    const message = reply.trim();
    if (message) void decide({ type: 'respond', message });
  };

  return (
    <Modal label="Approve tool call" className="approval-dialog" title="Approve tool call" focusDialog hideBackground={false}>
      <div className="approval-meta">
        <span className="approval-tool mono">{approval.toolName}</span>
        {approval.parentToolCallId ? <span className="badge">subagent</span> : null}
        {total > 1 ? <span className="muted">1 of {total} waiting</span> : null}
      </div>
      {approval.reason ? <p className="approval-reason">{approval.reason}</p> : null}
      {linkTarget !== null ? <p className="approval-link-target mono">{linkTarget}</p> : null}
      {approval.outsideSandbox ? (
        <p className="approval-outside-sandbox" role="note">
          <strong>This command runs outside the sandbox</strong>, with your full access to files and the network. The agent&apos;s reason:{' '}
          <q>{approval.outsideSandbox.reason}</q>
        </p>
      ) : null}

      {editing ? (
        <div className="field">
          <label htmlFor={editId}>{command !== null ? 'Command' : 'Arguments (JSON)'}</label>
          <textarea
            id={editId}
            className="mono approval-edit"
            value={draft}
            rows={command !== null ? 3 : 10}
            spellCheck={false}
            onChange={(e) => {
              setDraft(e.target.value);
              setDraftError(null);
            }}
            autoFocus
          />
          {draftError ? <p className="error-text" role="alert">{draftError}</p> : null}
          <p className="muted">Approve runs the call with these {command !== null ? 'changes' : 'arguments'}.</p>
        </div>
      ) : command !== null ? (
        <div className="approval-command">
          <div className="tool-section-label">Command</div>
          <pre className="mono">{command}</pre>
        </div>
      ) : approval.preview ? (
        <DiffView path={approval.preview.path} before={approval.preview.before} after={approval.preview.after} />
      ) : (
        <div>
          <div className="tool-section-label">Arguments</div>
          <pre className="tool-pre approval-args">{safeJson(approval.args, 2)}</pre>
        </div>
      )}

      {approval.suggestedRule && !editing ? (
        <label className="always-allow">
          <input type="checkbox" checked={always} onChange={(e) => setAlways(e.target.checked)} />
          <span>
            Always allow: <span className="rule-scope">{approval.suggestedRule.description ?? describeRule(approval.suggestedRule)}</span>
          </span>
        </label>
      ) : null}

      <div className="field approval-reply">
        <label htmlFor={replyId}>Reply to the agent</label>
        <textarea
          id={replyId}
          value={reply}
          rows={2}
          placeholder="Optional: why you reject it, or an answer instead of running it"
          onChange={(e) => setReply(e.target.value)}
        />
      </div>

      <div className="dialog-actions approval-actions">
        <button type="button" className="btn" onClick={respond} disabled={busy || reply.trim() === ''}>
          Respond
        </button>
        <span className="spacer" />
        {editing ? (
          <button type="button" className="btn" onClick={() => setEditing(false)} disabled={busy}>
            Cancel edit
          </button>
        ) : (
          <button type="button" className="btn" onClick={startEdit} disabled={busy}>
            Edit
          </button>
        )}
        <button type="button" className="btn btn-danger" onClick={reject} disabled={busy}>
          Reject
        </button>
        <button type="button" className="btn btn-primary" onClick={approve} disabled={busy}>
          Approve
        </button>
      </div>
    </Modal>
  );
}
