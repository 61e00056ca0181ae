// Finds model servers running on this machine at their usual ports (Ollama, LM Studio,
// llama.cpp server, vLLM), so settings can offer them with one click.

import type { z } from 'zod';
import type { localServerSchema } from '../contract';

type LocalServer = z.infer<typeof localServerSchema>;

const CANDIDATES: Array<{ name: string; baseUrl: string; provider: LocalServer['provider'] }> = [
  { name: 'Ollama', baseUrl: 'http://127.0.0.1:11434/v1', provider: 'ollama' },
  { name: 'LM Studio', baseUrl: 'http://127.0.0.1:1234/v1', provider: 'openai-compatible' },
  { name: 'llama.cpp', baseUrl: 'http://127.0.0.1:8080/v1', provider: 'openai-compatible' },
  { name: 'vLLM', baseUrl: 'http://127.0.0.1:8000/v1', provider: 'openai-compatible' },
];

export async function detectLocalServers(timeoutMs = 800, fetchImpl: typeof fetch = fetch): Promise<LocalServer[]> {
  const found = await Promise.all(
    CANDIDATES.map(async (c) => {
      try {
        const response = await fetchImpl(`${c.baseUrl}/models`, { signal: AbortSignal.timeout(timeoutMs) });
        if (!response.ok) return null;
        const body = (await response.json()) as { data?: Array<{ id?: unknown }> };
        const models = (body.data ?? []).map((m) => m.id).filter((id): id is string => typeof id === 'string');
        return { provider: c.provider, baseUrl: c.baseUrl, models };
      } catch {
        return null;
      }
    }),
  );
  return found.filter((s): s is LocalServer => s !== null);
}
