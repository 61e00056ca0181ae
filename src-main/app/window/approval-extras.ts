// What the window shows with an approval of its folder (a `deepdesk run`'s too): the diff
// preview, the suggested "always allow" rule, and where a command runs.

import { wantsOutsideSandbox } from '../../core/agent/permissions/modes';
import { evaluatePermission, suggestAllowRule, type PermissionRule } from '../../core/agent/permissions/rules';
import type { ApprovalRequest } from '../../core/agent/types';
import type { Backend } from '../../core/backends/protocol';
import { approvalPreview } from '../approvals/approval-preview';
import type { ApprovalExtras } from '../approvals/approval-service';
import type { SandboxPlaceDto } from '../contract';
import type { SessionPlace } from '../session/session-place';

/** The provider's sandbox the folder's threads run in (SPEC §18), as the window names it. */
export function sandboxPlaceOf(place: SessionPlace): SandboxPlaceDto | undefined {
  return place.provider ? { provider: place.provider.name, label: place.provider.label, sandboxId: place.provider.sandboxId } : undefined;
}

export function approvalDescriber(place: SessionPlace, backend: Backend, rulesBefore: () => readonly PermissionRule[]): (request: ApprovalRequest) => Promise<ApprovalExtras> {
  const provider = sandboxPlaceOf(place);
  // Where this folder's commands run: the remote machine of an SSH folder (else this one), and whether a sandbox contains them.
  const commands: { host?: string; sandboxed: boolean; provider?: SandboxPlaceDto } = {
    ...(place.remote ? { host: place.remote.connection.label } : {}),
    ...(provider ? { provider } : {}),
    sandboxed: place.sandbox !== undefined || provider !== undefined,
  };
  return async (request) => {
    // "Always allow" is offered only when the rule it saves would allow the call: not past a deny or ask rule of a settings file that comes first.
    const suggested = suggestAllowRule({ tool: request.toolName, args: request.args });
    const effective = suggested !== undefined && evaluatePermission({ tool: request.toolName, args: request.args }, [...rulesBefore(), suggested]).decision === 'allow';
    const extras: ApprovalExtras = { suggestedRule: effective ? suggested : undefined };
    // A command asking to run outside the sandbox runs outside it, wherever it runs.
    // A provider's sandbox is where every command runs: there is no outside to ask for.
    if (request.toolName === 'execute')
      extras.runsOn = { ...commands, sandboxed: commands.sandboxed && (commands.provider !== undefined || (request.outsideSandbox === undefined && !wantsOutsideSandbox(request.args))) };
    const preview = await approvalPreview(request, backend);
    return preview !== undefined ? { ...extras, preview } : extras;
  };
}
