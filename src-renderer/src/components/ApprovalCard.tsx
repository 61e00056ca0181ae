// A paused tool call, asked inline in the conversation at the call (SPEC §6: a group named
// `Approve tool call`): approve (optionally always), reject with a message, edit what
// matters, or answer instead. Shortcuts while focus is in the card: 1 approve, 2 approve
// and always allow, 3 reject, E edit, Esc to reject with a message; other typing goes to the
// message box. Nothing here is modal.
// Everything the model controls (the command, paths, the analyser's reason and the rule
// offered, which quote them) is plain text with invisible characters escaped, never
// Markdown or HTML: whatever backticks, quotes or tags it holds, it reads as written.

import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { goalCheckOf, runsInText, type ApprovalDecisionDto, type PendingApproval } from '../../../src-main/app/contract';
import { approvalReasonText } from '../lib/approval-reason';
import { toolTitleText } from '../lib/tool-title';
import { alwaysAllowLabel, editFields, editedArgs, initialDrafts } from '../lib/approval-edit';
import { focusMessageBox, keyboardIsFree, personPutKeyboardOn, takeKeyboard } from '../lib/focus';
import { describeRule } from '../lib/rules';
import { commandOf, safeJson } from '../lib/tool-summary';
import { hasInvisible, visibleText } from '../lib/visible-text';
import { DiffView } from './DiffView';
import { Icon } from './Icon';
import { PathLink } from './PathLink';
import { ToolTitle } from './ToolTitle';
import { VisibleText } from './VisibleText';
import { ErrorAlert } from './ErrorText';

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

/** The symlink target and the outside-the-sandbox request of an approval, when it has them. */
function extras(approval: PendingApproval): { resolvedTarget?: string; outsideSandbox: boolean; sandboxReason?: string } {
  const args = approval.args;
  const resolvedTarget = approval.resolvedTarget !== undefined && approval.resolvedTarget !== '' ? approval.resolvedTarget : undefined;
  // Anything but an absent or `true` sandbox argument runs outside (as the mode engine decides).
  const outsideSandbox = approval.outsideSandbox !== undefined || (args.sandbox !== undefined && args.sandbox !== true);
  const reason = approval.outsideSandbox?.reason ?? args.reason;
  const stated = typeof reason === 'string' && reason.trim() !== '' ? reason : undefined;
  return { ...(resolvedTarget ? { resolvedTarget } : {}), outsideSandbox, ...(stated ? { sandboxReason: stated } : {}) };
}

function Kbd({ children }: { children: string }): React.JSX.Element {
  return (
    <kbd className="kbd" aria-hidden="true">
      {children}
    </kbd>
  );
}

/** The host's own run of a goal's verify step (SPEC §21), not the agent's command: which step of how many. */
export function GoalCheckBadge({ toolCallId }: { toolCallId: string }): React.JSX.Element | null {
  const check = goalCheckOf(toolCallId);
  return check === undefined ? null : (
    <span className="badge goal-check" title="The host runs this itself to check the goal">
      Goal check {check.step} of {check.of}
    </span>
  );
}

/** Where the command runs: the remote machine or this one, and (unless the warning above says it) whether sandboxed. */
function RunsOn({ where, outsideSandbox }: { where: NonNullable<PendingApproval['runsOn']>; outsideSandbox: boolean }): React.JSX.Element {
  return (
    <p className="approval-where muted small">
      <Icon name="terminal" size={12} />
      {where.provider !== undefined ? (
        runsInText(where.provider)
      ) : where.host !== undefined ? (
        <>
          Runs on{' '}
          <span className="mono approval-host">
            <VisibleText text={where.host} />
          </span>
        </>
      ) : (
        'Runs on this computer'
      )}
      {outsideSandbox || where.provider !== undefined ? null : where.sandboxed ? ' · Sandboxed' : ' · Not sandboxed'}
    </p>
  );
}

export function ApprovalCard({ approval, position, total, onDecide, autoFocus, inCard = false, reviewFailed }: ApprovalCardProps): React.JSX.Element {
  const command = approval.toolName === 'execute' ? commandOf(approval.args) : null;
  const check = goalCheckOf(approval.toolCallId);
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
  const { resolvedTarget, outsideSandbox, sandboxReason } = extras(approval);
  const path = approval.preview?.path ?? (typeof approval.args.file_path === 'string' ? approval.args.file_path : typeof approval.args.path === 'string' ? approval.args.path : undefined);
  const rule = approval.suggestedRule;
  const reason = approval.reason ? approvalReasonText(approval.toolName, approval.args, approval.reason, approval.why) : '';

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

  const titleId = `${baseId}-title`;
  const failedId = reviewFailed !== undefined ? ` ${baseId}-review-failed` : '';
  return (
    <div role="group" aria-label="Approve tool call" aria-describedby={`${inCard ? `${baseId}-call ` : ''}${titleId}${failedId}`} className="approval-card" onKeyDown={onKeyDown}>
      <div className="approval-meta" id={titleId}>
        <Icon name="alert" size={14} />
        {/* Inside its tool card the card's header names the call: said once on screen, whole to a screen reader (the group's description). */}
        {inCard ? (
          <span>
            <span hidden id={`${baseId}-call`}>
              {visibleText(toolTitleText(approval.toolName, approval.args))}
            </span>
            Needs your approval
          </span>
        ) : (
          <span>
            <ToolTitle name={approval.toolName} args={approval.args} className="approval-tool" /> needs your approval
          </span>
        )}
        <GoalCheckBadge toolCallId={approval.toolCallId} />
        {approval.parentToolCallId ? <span className="badge">subagent</span> : null}
        {/* Another agent of the thread asks over ACP (SPEC §22): named on the card. */}
        {approval.agent ? <span className="badge approval-agent">{visibleText(approval.agent)} asks</span> : null}
        {total > 1 ? (
          <span className="muted approval-position">
            {position} of {total} waiting
          </span>
        ) : null}
      </div>
      {reviewFailed !== undefined ? (
        <p className="approval-warning" id={`${baseId}-review-failed`}>
          <Icon name="alert" size={14} /> The reviewer could not answer: <VisibleText text={reviewFailed.replace(/^the reviewer could not answer: /i, '')} />. You decide.
        </p>
      ) : null}
      {check !== undefined ? (
        <p className="approval-goal-check">
          The host runs this to check the goal (step {check.step} of {check.of}), as the agent&apos;s own commands run. Reject it and the goal ends <strong>blocked</strong>: it is never granted without its checks.
        </p>
      ) : null}
      {/* The reason quotes the call (a command, a path, a redirection target): plain text. */}
      {reason ? (
        <p className="approval-reason">
          <VisibleText text={reason} />
        </p>
      ) : null}

      {outsideSandbox ? (
        <p className="approval-warning">
          <Icon name="shield" size={14} /> This command runs outside the sandbox, with your full access to files and the network{sandboxReason ? '. The agent’s reason:' : '.'}
          {sandboxReason ? (
            <span className="approval-stated">
              {' '}
              <VisibleText text={sandboxReason} />
            </span>
          ) : null}
        </p>
      ) : sandboxReason ? (
        <p className="approval-stated muted">
          Agent’s reason: <VisibleText text={sandboxReason} />
        </p>
      ) : null}
      {resolvedTarget && path && resolvedTarget !== path ? (
        <p className="approval-warning">
          <Icon name="alert" size={14} /> <PathLink path={path} /> is a link: this {approval.toolName === 'execute' ? 'runs' : 'writes'} to <span className="mono resolved-target"><VisibleText text={resolvedTarget} /></span>
        </p>
      ) : null}

      {editing ? (
        <div className="approval-editors">
          {/* The diff that named the file gives way to the editors: the file is still said. */}
          {path !== undefined && command === null ? (
            <p className="muted small approval-editing">
              File <span className="mono"><VisibleText text={path} /></span>
            </p>
          ) : null}
          {fields.map((field) => {
            const id = `${baseId}-${field.key || 'json'}`;
            const value = drafts[field.key] ?? '';
            return (
              <div className="field" key={field.key}>
                <label htmlFor={id}>{field.label}</label>
                <textarea
                  id={id}
                  className="mono approval-edit"
                  value={value}
                  rows={field.rows}
                  spellCheck={false}
                  onChange={(e) => {
                    const next = e.target.value;
                    setDrafts((d) => ({ ...d, [field.key]: next }));
                    setDraftError(null);
                  }}
                  autoFocus={field === fields[0]}
                />
                {hasInvisible(value) ? (
                  <p className="approval-warning small">
                    Contains invisible characters: <span className="mono"><VisibleText text={value} /></span>
                  </p>
                ) : null}
              </div>
            );
          })}
          <ErrorAlert error={draftError} />
          <p className="muted small">Approve runs the call with your changes.</p>
        </div>
      ) : command !== null ? (
        <div className="approval-command">
          <div className="tool-section-label">Command</div>
          <pre className="mono">
            <VisibleText text={command} />
          </pre>
          {hasInvisible(command) ? <p className="approval-warning small">This command contains invisible, control or stray combining characters (shown as ⟨U+…⟩).</p> : null}
          {approval.runsOn ? <RunsOn where={approval.runsOn} outsideSandbox={outsideSandbox} /> : null}
        </div>
      ) : approval.preview ? (
        <DiffView path={approval.preview.path} before={approval.preview.before} after={approval.preview.after} />
      ) : (
        <div>
          <div className="tool-section-label">Arguments</div>
          <pre className="tool-pre approval-args">
            <VisibleText text={safeJson(approval.args, 2)} />
          </pre>
        </div>
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
