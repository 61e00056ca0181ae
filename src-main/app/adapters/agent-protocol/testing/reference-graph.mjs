// The graph the reference LangGraph server serves in tests (reference-server.ts): Deep Agents'
// agent on a scripted OpenAI-compatible model, asking a person before every `write_file` (its
// human-in-the-loop middleware), as Deepdesk's `deepdesk` assistant asks in `ask` mode.
// Plain JavaScript: the reference server imports it with Node's own loader.

import { ChatOpenAI } from '@langchain/openai';
import { createDeepAgent } from 'deepagents';

const baseURL = process.env.DEEPDESK_REFERENCE_MODEL_URL;
if (!baseURL) throw new Error('DEEPDESK_REFERENCE_MODEL_URL names the scripted model server (reference-server.ts sets it)');

export const graph = createDeepAgent({
  model: new ChatOpenAI({ model: 'gpt-test', apiKey: 'test-key', configuration: { baseURL }, streaming: true }),
  interruptOn: { write_file: true },
});
