import { ZERO_USAGE } from './types';
import type { ModelEvent, ProviderMetadata, ReasoningBlock, StopReason, ToolCall, Usage } from './types';

export interface CollectedResponse {
  text: string;
  reasoning: string;
  /** Reasoning blocks that must go back to the provider with the answer. */
  reasoningParts: ReasoningBlock[];
  /** Provider metadata of the text part, when the provider sent some. */
  textMetadata?: ProviderMetadata;
  toolCalls: ToolCall[];
  stopReason: StopReason;
  usage: Usage;
}

/** Drains a model stream into the whole answer (for summaries, titles and tests). */
export async function collectResponse(events: AsyncIterable<ModelEvent>): Promise<CollectedResponse> {
  const result: CollectedResponse = { text: '', reasoning: '', reasoningParts: [], toolCalls: [], stopReason: 'other', usage: { ...ZERO_USAGE } };
  for await (const event of events) {
    switch (event.type) {
      case 'text-delta':
        result.text += event.text;
        break;
      case 'reasoning-delta':
        result.reasoning += event.text;
        break;
      case 'reasoning-part':
        result.reasoningParts.push(event.reasoning);
        break;
      case 'text-metadata':
        result.textMetadata = event.providerMetadata;
        break;
      case 'tool-call':
        result.toolCalls.push(event.call);
        break;
      case 'finish':
        result.stopReason = event.stopReason;
        result.usage = event.usage;
        break;
      case 'tool-call-start':
        break;
    }
  }
  return result;
}
