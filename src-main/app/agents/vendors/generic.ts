// A command the person added in Settings › Agents (SPEC §22): started as given (contained all the
// same), its model not metered unless its environment points it at `{{DEEPDESK_MODEL_URL}}`. It
// may start any vendor's agent, so every known vendor's quirks hold for it: their allow-rules left
// out of its home, their variables dropped, its requests read in every vendor's shape at once.
import type { z } from 'zod';
import type { addedAgentSchema } from '../../contract';
import type { AgentVendor, KnownAgent, RequestedOperation, RequestToolCall } from './vendor';

export type AddedAgent = z.infer<typeof addedAgentSchema>;

export function addedVendor(added: AddedAgent, known: readonly KnownAgent[]): AgentVendor {
  return {
    name: added.name,
    label: added.label ?? added.name,
    loginEntries: [],
    withoutAllowRules: (home) => known.forEach((k) => k.withoutAllowRules(home)),
    droppedEnv: known.flatMap((k) => k.droppedEnv ?? []),
    describeRequest: (call) => inEveryShape(call, known),
  };
}

/** A request read in every vendor's shape: all the paths any names, and the command one found in its input (else the title). */
export function inEveryShape(call: RequestToolCall, known: readonly KnownAgent[]): RequestedOperation {
  const read = known.map((k) => k.describeRequest(call));
  const command = read.map((r) => r.command).find((c) => c !== undefined && c !== call.title) ?? read[0]?.command;
  return { paths: [...new Set(read.flatMap((r) => r.paths))], ...(command !== undefined ? { command } : {}) };
}
