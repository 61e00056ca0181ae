// What every agent tool is: a name, a description written for the model, a zod schema
// for its arguments, and a function from validated arguments to text (SPEC §3).

import type { StepAttribution } from '../process/attribution';
import type { ReviewLayer } from '../sandbox/types';
import type { z } from 'zod';
import type { Backend } from '../backends/protocol';
import type { RunContext } from '../agent/run-context';
import type { AgentEventBody } from '../agent/types';
import type { MediaInput } from '../models/types';
import type { MediaKind } from '../media/kinds';
import type { FileChangeSummary } from './file-change';
import type { ReadGuard } from './read-guard';
import type { ToolResultFacts } from './result-facts';

/** A media block a tool hands to the model (SPEC §12): an image, audio, video or a document. */
export interface ToolMedia {
  kind: MediaKind;
  mimeType: string;
  /** base64 */
  data: string;
  /** Decoded size. */
  bytes: number;
  /** Where it came from (a virtual path, or e.g. `server:uri` for an MCP resource). */
  name?: string;
}

/** `ToolResultFacts`: what the tool or a middleware knows of the result beyond its text. */
export interface ToolOutput extends ToolResultFacts {
  /** Always present; a failure starts with `Error: `. With media, the line naming it. */
  text: string;
  media?: ToolMedia;
  /** Set when the text no longer starts with the failure's `Error: ` (e.g. a note was put before it). */
  isError?: boolean;
  /** Events a middleware reports about this call, emitted right after its tool_result (e.g. `checkpoint`). */
  followUp?: AgentEventBody[];
  /** What a write or edit did to its file (for the window's card; kept with the result, never sent to the model). */
  change?: FileChangeSummary;
}

/** Whether a tool output reports a failure. */
export function isErrorOutput(output: ToolOutput): boolean {
  return output.isError ?? output.text.startsWith('Error:');
}

export interface ToolContext {
  /** The mounted backend (normally the composite of the default mount table). */
  backend: Backend;
  /** Read-before-write bookkeeping of this thread or tool session. */
  guard: ReadGuard;
  toolCallId: string;
  signal?: AbortSignal;
  /** Raw terminal bytes while a command runs (execute only). */
  onTerminalData?: (chunk: string) => void;
  /** The agent run this call belongs to (absent in a `deepdesk tools` session). */
  run?: RunContext;
  /** What the model of this run takes (SPEC §12); undefined: everything (a `deepdesk tools` session). */
  mediaInput?: MediaInput;
  /** The W3C traceparent of this call's span when tracing is on: `execute` passes it as TRACEPARENT (SPEC §17). */
  traceparent?: string;
  /** The checkpoint step this call belongs to, when one is recorded: `execute` passes it on (ExecuteOptions.attribution). */
  attribution?: StepAttribution;
  /** Reviews the layer of the command this call runs before it is applied: `execute` passes it on (ExecuteOptions.reviewLayer). */
  reviewLayer?: ReviewLayer;
}

export interface AgentTool<Schema extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly description: string;
  readonly schema: Schema;
  /**
   * The parameters as JSON Schema, sent to the model as they are, for a tool whose schema
   * comes from elsewhere (an MCP server's); `schema` still checks the arguments.
   */
  readonly jsonSchema?: Record<string, unknown>;
  /** Callable, but not offered to the model this step (an MCP tool behind tool_search). */
  readonly deferred?: boolean;
  /**
   * Checks that need no person (paths, read-before-write, whether an edit applies): the
   * reason the call would fail, or undefined. Runs before any approval question, and
   * again (through runTool) when the call finally runs.
   */
  precheck?(args: z.output<Schema>, ctx: ToolContext): Promise<string | undefined>;
  run(args: z.output<Schema>, ctx: ToolContext): Promise<ToolOutput>;
}

/** Keeps the schema/run pairing typed at the definition site while storing tools uniformly. */
export function defineTool<Schema extends z.ZodType>(tool: AgentTool<Schema>): AgentTool {
  return tool as unknown as AgentTool;
}

export const errorText = (reason: string): ToolOutput => ({ text: `Error: ${reason}` });
export const text = (value: string): ToolOutput => ({ text: value });
