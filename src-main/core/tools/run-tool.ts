// Runs one tool call from untrusted input: unknown names, bad arguments and thrown
// exceptions all become `Error: ` text; nothing escapes as an exception.

import { describeIssues } from './args';
import { errorText, type AgentTool, type ToolContext, type ToolOutput } from './tool';

export async function runTool(tools: ReadonlyMap<string, AgentTool>, name: string, rawArgs: unknown, ctx: ToolContext): Promise<ToolOutput> {
  const checked = await checkToolCall(tools, name, rawArgs, ctx);
  if ('refusal' in checked) return checked.refusal;
  try {
    return await checked.tool.run(checked.args, ctx);
  } catch (err) {
    if (ctx.signal?.aborted) return errorText(`${name} was cancelled`);
    return errorText(`${name} failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * Every check of a call that needs no person: the tool exists, its arguments are valid,
 * and its own precheck passes. Returns the refusal, or the tool with its parsed arguments.
 */
export async function checkToolCall(
  tools: ReadonlyMap<string, AgentTool>,
  name: string,
  rawArgs: unknown,
  ctx: ToolContext,
): Promise<{ refusal: ToolOutput } | { tool: AgentTool; args: unknown }> {
  const tool = tools.get(name);
  if (tool === undefined) return { refusal: errorText(`unknown tool '${name}'`) };
  const parsed = tool.schema.safeParse(rawArgs ?? {});
  if (!parsed.success) return { refusal: errorText(describeIssues(name, parsed.error)) };
  try {
    const reason = await tool.precheck?.(parsed.data, ctx);
    if (reason !== undefined) return { refusal: errorText(reason) };
  } catch (err) {
    if (ctx.signal?.aborted) return { refusal: errorText(`${name} was cancelled`) };
    return { refusal: errorText(`${name} failed: ${err instanceof Error ? err.message : String(err)}`) };
  }
  return { tool, args: parsed.data };
}

export function toolMap(tools: readonly AgentTool[]): Map<string, AgentTool> {
  return new Map(tools.map((t) => [t.name, t]));
}
