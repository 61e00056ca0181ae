// The deepagents package (LangChain's Deep Agents for JS): the reference implementation.
// Loaded lazily so that a missing install makes its columns "n/a" instead of failing the run.

import type * as DeepAgents from 'deepagents';

export type DeepAgentsModule = typeof DeepAgents;

export type Loaded<T> = { ok: true; module: T } | { ok: false; error: string };

let cached: Promise<Loaded<DeepAgentsModule>> | undefined;

export function loadReference(): Promise<Loaded<DeepAgentsModule>> {
  cached ??= import('deepagents').then(
    (module): Loaded<DeepAgentsModule> => ({ ok: true, module }),
    (err: unknown): Loaded<DeepAgentsModule> => ({ ok: false, error: err instanceof Error ? err.message.split('\n')[0]! : String(err) }),
  );
  return cached;
}
