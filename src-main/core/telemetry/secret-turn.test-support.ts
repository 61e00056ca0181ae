// A turn whose every part carries a secret (the person's words, a message, the model's answer,
// a call's arguments, its failed result, the run's error): what an exporter sends must hold
// none of them, scrubbed by THE scrubber (core/process/scrub-secrets.ts).
import type { AgentRunInfo, Telemetry } from './observer';

export const PLANTED = ['planted-json-4242', 'planted-bearer-0123456789', 'planted-hunter2', 'planted-url-pw', 'planted-arg-key', 'planted-error-token'];
const [json, bearer, password, urlPassword, argKey, errorToken] = PLANTED;
/** What stays recognisable of the call. */
export const PUSH = 'git push https://[redacted]@git.example.com/r.git';

/** Three calls reach the exporter: the turn, its model call and its tool call. */
export function playSecretTurn(t: Telemetry, info: AgentRunInfo): void {
  const run = t.turn({ ...info, input: { role: 'user', content: `deploy with password: ${password}` } });
  const args = { command: `git push https://me:${urlPassword}@git.example.com/r.git`, api_key: argKey };
  run.modelCall({ purpose: 'agent', provider: 'openai', model: 'gpt-5', system: '', messages: [{ role: 'user', content: `{"api_token": "${json}"}` }], tools: [] }).end({
    usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
    durationMs: 1,
    text: `Authorization: Bearer ${bearer}`,
    toolCalls: [{ id: 'c1', name: 'execute', args }],
  });
  run.toolCall({ id: 'c1', name: 'execute', args }).end({ output: `fatal: token=${errorToken}`, isError: true });
  run.end({ reason: 'error', text: 'stopped', error: `push failed: token=${errorToken}` });
}
