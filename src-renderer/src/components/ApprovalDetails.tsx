// What an approval card (ApprovalCard.tsx) shows of its call: its header, what to know before
// deciding, and the call itself. What the model controls is plain text, as the card says there.

import { goalCheckOf, runsInText, type PendingApproval } from '../../../src-main/app/contract';
import { approvalReasonText } from '../lib/approval-reason';
import { toolTitleText } from '../lib/tool-title';
import { safeJson } from '../lib/tool-summary';
import { hasInvisible, visibleText } from '../lib/visible-text';
import { DiffView } from './DiffView';
import { Icon } from './Icon';
import { PathLink } from './PathLink';
import { ToolTitle } from './ToolTitle';
import { VisibleText } from './VisibleText';

/** Whether the call asks to run outside the sandbox: anything but an absent or `true` sandbox argument (as the mode engine decides). */
const outsideSandbox = (approval: PendingApproval): boolean => approval.outsideSandbox !== undefined || (approval.args.sandbox !== undefined && approval.args.sandbox !== true);

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

/** The card's first line: the call, its badges, its place among the approvals waiting. */
export function ApprovalMeta({ approval, inCard, baseId, position, total }: { approval: PendingApproval; inCard: boolean; baseId: string; position: number; total: number }): React.JSX.Element {
  return (
    <div className="approval-meta" id={`${baseId}-title`}>
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
  );
}

/** Why the person is asked, and what the call reaches that they may not expect. */
export function ApprovalNotes({ approval, reviewFailed, baseId, path }: { approval: PendingApproval; reviewFailed: string | undefined; baseId: string; path: string | undefined }): React.JSX.Element {
  const { resolvedTarget } = approval;
  const stated = approval.outsideSandbox?.reason ?? approval.args.reason;
  const sandboxReason = typeof stated === 'string' && stated.trim() !== '' ? stated : undefined;
  const check = goalCheckOf(approval.toolCallId);
  const reason = approval.reason ? approvalReasonText(approval.toolName, approval.args, approval.reason, approval.why) : '';
  return (
    <>
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
      {outsideSandbox(approval) ? (
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
    </>
  );
}

/** The call as it stands: its command (and where it runs), its change as a diff, or its arguments. */
export function CallView({ approval, command }: { approval: PendingApproval; command: string | null }): React.JSX.Element {
  return command !== null ? (
    <div className="approval-command">
      <div className="tool-section-label">Command</div>
      <pre className="mono">
        <VisibleText text={command} />
      </pre>
      {hasInvisible(command) ? <p className="approval-warning small">This command contains invisible, control or stray combining characters (shown as ⟨U+…⟩).</p> : null}
      {approval.runsOn ? <RunsOn where={approval.runsOn} outsideSandbox={outsideSandbox(approval)} /> : null}
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
  );
}
