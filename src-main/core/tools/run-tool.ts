// Runs one tool call from untrusted input: unknown names, bad arguments and thrown
// exceptions all become `Error: ` text; nothing escapes as an exception.

import { describeIssues } from './args';
import { errorText, type AgentTool, type ToolContext, type ToolOutput } from './tool';

export async function runTool(tools: ReadonlyMap<string, AgentTool>, name: string, rawArgs: unknown, ctx: ToolContext): Promise<ToolOutput> {
  const tool = tools.get(name);
  if (tool === undefined) return errorText(`unknown tool '${name}'`);
  const parsed = tool.schema.safeParse(rawArgs ?? {});
  if (!parsed.success) return errorText(describeIssues(name, parsed.error));
  try {
    return await tool.run(parsed.data, ctx);
  } catch (err) {
    if (ctx.signal?.aborted) return errorText(`${name} was cancelled`);
    return errorText(`${name} failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}

export function toolMap(tools: readonly AgentTool[]): Map<string, AgentTool> {
  return new Map(tools.map((t) => [t.name, t]));
}
