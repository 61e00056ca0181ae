// An approval is told apart by its call and, for a subagent's call, the `task` call it runs
// under: two subagents may use the same tool-call id.

export function approvalKey(toolCallId: string, parentToolCallId?: string): string {
  return parentToolCallId ? `${parentToolCallId}\u0000${toolCallId}` : toolCallId;
}
