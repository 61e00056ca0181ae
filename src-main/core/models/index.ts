export type {
  ChatMessage,
  ChatModel,
  ContentPart,
  ModelEvent,
  ModelRequest,
  ProviderName,
  StopReason,
  ToolCall,
  ToolSpec,
  Usage,
} from './types';
export { PROVIDERS, ZERO_USAGE } from './types';
export { AbortedError, ContextOverflowError, ModelConfigError, ModelError, classifyError, isContextOverflowText } from './errors';
export { modelProblem } from './connection-problem';
export type { ModelProblem, ModelProblemCheck, ModelProblemKind } from './connection-problem';
export { createChatModel } from './create-model';
export { parseModelSpec, type ModelSpec } from './model-spec';
export type { CreateChatModelOptions } from './create-model';
export type { RetryInfo, RetryPolicy } from './retry';
export { DEFAULT_CONTEXT_WINDOW, contextWindowFor, costAt, costOf, modelPrice, priceFor, resolvePrice } from './model-info';
export type { ModelPrice } from './model-info';
export { collectResponse } from './collect';
export type { CollectedResponse } from './collect';
