// What the environment asks of LangSmith (its variables, read as the SDK reads them): apart
// from the exporter (langsmith.ts), so that deciding whether to trace loads no LangSmith SDK.

/** The SDK's default endpoint (LangSmith's cloud). */
const DEFAULT_ENDPOINT = 'https://api.smith.langchain.com';
/** The SDK's default project. */
const DEFAULT_PROJECT = 'default';

/** What the environment asks of LangSmith, read as the SDK reads it. */
export interface LangSmithConfig {
  apiUrl: string;
  apiKey: string;
  project: string;
  workspaceId?: string;
  hideInputs: boolean;
  hideOutputs: boolean;
  hideMetadata: boolean;
  samplingRate: number;
}

/** undefined unless LANGSMITH_TRACING=true (or the LANGCHAIN_ equivalent) and an API key is set. */
export function langsmithConfig(env: NodeJS.ProcessEnv): LangSmithConfig | undefined {
  // As the SDK: LANGSMITH_X, else LANGCHAIN_X; TRACING_V2 or TRACING exactly "true".
  const read = (name: string): string | undefined => unquote(env[`LANGSMITH_${name}`]) || unquote(env[`LANGCHAIN_${name}`]) || undefined;
  if (read('TRACING_V2') !== 'true' && read('TRACING') !== 'true') return undefined;
  const apiKey = read('API_KEY');
  if (apiKey === undefined) return undefined;
  const rate = Number(read('TRACING_SAMPLING_RATE') ?? '1');
  const workspaceId = read('WORKSPACE_ID');
  return {
    apiUrl: (read('ENDPOINT') ?? DEFAULT_ENDPOINT).replace(/\/+$/, ''),
    apiKey,
    project: read('PROJECT') ?? (unquote(env.LANGCHAIN_SESSION) || DEFAULT_PROJECT),
    ...(workspaceId !== undefined ? { workspaceId } : {}),
    hideInputs: read('HIDE_INPUTS') === 'true',
    hideOutputs: read('HIDE_OUTPUTS') === 'true',
    hideMetadata: read('HIDE_METADATA') === 'true',
    samplingRate: Number.isFinite(rate) && rate >= 0 && rate <= 1 ? rate : 1,
  };
}

function unquote(value: string | undefined): string | undefined {
  const v = value?.trim();
  if (!v) return undefined;
  return v.replace(/^(["'])(.*)\1$/, '$2') || undefined;
}
