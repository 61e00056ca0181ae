// A paused tool call, asked inline in the conversation at the call (SPEC §6: a group named
// `Approve tool call`): approve (optionally always), reject with a message, edit what
// matters, or answer instead. Shortcuts while focus is in the card: 1 approve, 2 approve
// and always allow, 3 reject, E edit, Esc to reject with a message; other typing goes to the
// message box. Nothing here is modal.
// Everything the model controls (the command, paths, the analyser's reason and the rule
// offered, which quote them) is plain text with invisible characters escaped, never
// Markdown or HTML: whatever backticks, quotes or tags it holds, it reads as written.

import { useEffect, useId, useMemo, useRef, useState } from 'react';
import type { ApprovalDecisionDto, PendingApproval } from '../../../src-main/app/contract';
import { alwaysAllowLabel, editFields, editedArgs, initialDrafts, type EditField } from '../lib/approval-edit';
import { focusMessageBox, keyboardIsFree, personPutKeyboardOn, takeKeyboard } from '../lib/focus';
import { describeRule } from '../lib/rules';
import { commandOf } from '../lib/tool-summary';
import { hasInvisible } from '../lib/visible-text';
import { ApprovalMeta, ApprovalNotes, CallView } from './ApprovalDetails';
import { VisibleText } from './VisibleText';
import { ErrorAlert } from './ErrorText';

export { GoalCheckBadge } from './ApprovalDetails';

interface ApprovalCardProps {
  approval: PendingApproval;
  /** 1-based place among the waiting approvals, oldest first, and how many wait. */
  position: number;
  total: number;
  onDecide(decision: ApprovalDecisionDto): Promise<boolean>;
  /** Take focus when it appears (the first waiting approval, when focus is free). */
  autoFocus: boolean;
  /** Shown inside the call's own card, whose header already names the call. */
  inCard?: boolean;
  /** Why the reviewer (SPEC §23) could not answer, so the person is asked. */
  reviewFailed?: string;
}

function Kbd({ children }: { children: string }): React.JSX.Element {
  return <kbd className="kbd" aria-hidden="true">{children}</kbd>;
}

/** The call's arguments as the person edits them (the file, when the diff that named it gives way to them). */
function ApprovalEditors(props: { fields: readonly EditField[]; drafts: Record<string, string>; error: string | null; baseId: string; file: string | undefined; onEdit(key: string, value: string): void }): React.JSX.Element {
  const { fields, drafts, error, baseId, file, onEdit } = props;
  return (
    <div className="approval-editors">
      {file !== undefined ? (
        <p className="muted small approval-editing">
          File <span className="mono"><VisibleText text={file} /></span>
        </p>
      ) : null}
      {fields.map((field) => {
        const id = `${baseId}-${field.key || 'json'}`;
        const value = drafts[field.key] ?? '';
        return (
          <div className="field" key={field.key}>
            <label htmlFor={id}>{field.label}</label>
            <textarea id={id} className="mono approval-edit" value={value} rows={field.rows} spellCheck={false} onChange={(e) => onEdit(field.key, e.target.value)} autoFocus={field === fields[0]} />
            {hasInvisible(value) ? (
              <p className="approval-warning small">
                Contains invisible characters: <span className="mono"><VisibleText text={value} /></span>
              </p>
            ) : null}
          </div>
        );
      })}
      <ErrorAlert error={error} />
      <p className="muted small">Approve runs the call with your changes.</p>
    </div>
  );
}

export function ApprovalCard({ approval, position, total, onDecide, autoFocus, inCard = false, reviewFailed }: ApprovalCardProps): React.JSX.Element {
  const command = approval.toolName === 'execute' ? commandOf(approval.args) : null;
  const fields = useMemo(() => editFields(approval.toolName, approval.args), [approval.toolName, approval.args]);
  const [editing, setEditing] = useState(false);
  const [drafts, setDrafts] = useState<Record<string, string>>({});
  const [draftError, setDraftError] = useState<string | null>(null);
  const [reply, setReply] = useState('');
  const [always, setAlways] = useState(false);
  const [busy, setBusy] = useState(false);
  const [rejecting, setRejecting] = useState(false);
  const baseId = useId();
  const approveRef = useRef<HTMLButtonElement>(null);
  const replyRef = useRef<HTMLTextAreaElement>(null);
  const path = approval.preview?.path ?? (typeof approval.args.file_path === 'string' ? approval.args.file_path : typeof approval.args.path === 'string' ? approval.args.path : undefined);
  const rule = approval.suggestedRule;

  // Taken when it appears with the keyboard free. The card is mounted again when it moves (drawn
  // alone until its call's card arrives, then inside it): it then takes the keyboard back only if
  // nothing has it, never from where the person went meanwhile (another approval's button).
  useEffect(() => {
    const log = approveRef.current?.closest('[role="log"]') ?? null;
    // Free as the conversation counts it (the keyboard in the log counts as free), but not on
    // another approval the person went to. A newer approval that took it by itself (parallel
    // calls are asked about in any order) gives it to this older one.
    const active = document.activeElement;
    const onOtherApproval = active?.closest('[role="group"][aria-label="Approve tool call"]') != null && personPutKeyboardOn(active);
    if (autoFocus && keyboardIsFree(log) && !onOtherApproval && approveRef.current) takeKeyboard(approveRef.current);
  }, [autoFocus]);

  const decide = async (decision: ApprovalDecisionDto): Promise<void> => {
    if (busy) return;
    setBusy(true);
    const ok = await onDecide(decision);
    if (!ok) setBusy(false);
  };

  const startEdit = (): void => {
    setDrafts(initialDrafts(fields, approval.args));
    setDraftError(null);
    setEditing(true);
  };
  const edit = (key: string, value: string): void => {
    setDrafts((d) => ({ ...d, [key]: value }));
    setDraftError(null);
  };

  const approve = (alwaysAllow = always): void => {
    if (!editing) {
      void decide(alwaysAllow && rule ? { type: 'approve', alwaysAllow: rule } : { type: 'approve' });
      return;
    }
    const result = editedArgs(approval.toolName, fields, approval.args, drafts);
    if ('error' in result) {
      setDraftError(result.error);
      return;
    }
    void decide({ type: 'edit', args: result.args });
  };

  const reject = (): void => {
    const message = reply.trim();
    void decide(message ? { type: 'reject', message } : { type: 'reject' });
  };

  const respond = (): void => {
    const message = reply.trim();
    if (message) void decide({ type: 'respond', message });
    else {
      setRejecting(false);
      replyRef.current?.focus();
    }
  };

  const onKeyDown = (e: React.KeyboardEvent<HTMLDivElement>): void => {
    if (busy || e.altKey || e.ctrlKey || e.metaKey) return;
    const target = e.target as HTMLElement;
    const typing = target.tagName === 'TEXTAREA' || target.tagName === 'INPUT';
    if (typing) {
      if (target === replyRef.current && e.key === 'Enter' && !e.shiftKey && reply.trim() !== '') {
        e.preventDefault();
        if (rejecting) reject();
        else respond();
      } else if (e.key === 'Escape') {
        e.preventDefault();
        if (target === replyRef.current && rejecting) reject();
        else approveRef.current?.focus();
      }
      return;
    }
    const actions: Record<string, () => void> = {
      '1': () => approve(),
      '2': () => rule && !editing && approve(true),
      '3': reject,
      e: () => (editing ? undefined : startEdit()),
      Escape: () => {
        setRejecting(true);
        replyRef.current?.focus();
      },
    };
    const action = actions[e.key === 'E' ? 'e' : e.key];
    if (!action) {
      // Typing that is no shortcut was meant for the message box: it goes there (this key too).
      if (e.key.length === 1 && e.key !== ' ' && !(target instanceof HTMLSelectElement)) focusMessageBox();
      return;
    }
    e.preventDefault();
    e.stopPropagation();
    action();
  };

  const failedId = reviewFailed !== undefined ? ` ${baseId}-review-failed` : '';
  return (
    <div role="group" aria-label="Approve tool call" aria-describedby={`${inCard ? `${baseId}-call ` : ''}${baseId}-title${failedId}`} className="approval-card" onKeyDown={onKeyDown}>
      <ApprovalMeta approval={approval} inCard={inCard} baseId={baseId} position={position} total={total} />
      <ApprovalNotes approval={approval} reviewFailed={reviewFailed} baseId={baseId} path={path} />
      {editing ? (
        <ApprovalEditors fields={fields} drafts={drafts} error={draftError} baseId={baseId} file={command === null ? path : undefined} onEdit={edit} />
      ) : (
        <CallView approval={approval} command={command} />
      )}
      {rule && !editing ? (
        <label className="always-allow">
          <input type="checkbox" checked={always} onChange={(e) => setAlways(e.target.checked)} aria-keyshortcuts="2" />
          <span className="rule-scope">
            <VisibleText text={alwaysAllowLabel(rule.description, describeRule(rule))} />
          </span>
          <Kbd>2</Kbd>
        </label>
      ) : null}
      <div className="field approval-reply">
        <label htmlFor={`${baseId}-reply`}>{rejecting ? 'Why you reject it (Enter to reject)' : 'Message to the agent'}</label>
        <textarea
          ref={replyRef}
          id={`${baseId}-reply`}
          value={reply}
          rows={1}
          placeholder="Optional: why you reject it, or an answer instead of running it"
          onChange={(e) => setReply(e.target.value)}
        />
      </div>
      <div className="approval-actions">
        <button ref={approveRef} type="button" className="btn btn-primary" onClick={() => approve()} disabled={busy} aria-keyshortcuts="1">
          Approve <Kbd>1</Kbd>
        </button>
        <button type="button" className="btn btn-danger" onClick={reject} disabled={busy} aria-keyshortcuts="3">
          Reject <Kbd>3</Kbd>
        </button>
        {editing ? (
          <button type="button" className="btn" onClick={() => setEditing(false)} disabled={busy}>
            Discard changes
          </button>
        ) : (
          <button type="button" className="btn" onClick={startEdit} disabled={busy} aria-keyshortcuts="E">
            Edit <Kbd>E</Kbd>
          </button>
        )}
        <button type="button" className="btn" onClick={respond} disabled={busy} title="Answer the agent instead of running the call">
          Respond
        </button>
        <span className="muted small approval-hint">Esc: reject with a message</span>
      </div>
    </div>
  );
}
