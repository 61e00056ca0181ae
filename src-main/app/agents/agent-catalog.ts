// The catalog of external agents (SPEC §22): the known ACP agents, each pinned by version,
// with how it is started in its most-asking setting, pointed at the metering proxy on its model
// endpoint, and which login folders of the person's home it reads; plus the commands the person
// adds (command, arguments, environment). THE table of known agents.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The model API an agent speaks (what the metering proxy reads and where the key goes). */
export type AgentModelApi = 'anthropic' | 'openai-responses' | 'gemini';

export interface KnownAgent {
  name: string;
  label: string;
  /** The npm package installed on the person's confirmation, and its pinned version. */
  packageName: string;
  version: string;
  /** The script run with Node, inside the installed package. */
  script: string;
  args: readonly string[];
  api: AgentModelApi;
  /** The real endpoint the proxy passes calls to. */
  upstream: string;
  /** Where the person's key goes upstream, and the variable Deepdesk's key is read from. */
  keyHeader: string;
  keyVariable: string;
  /** The person's variable of the provider's base URL: where the proxy sends its calls when set (default `upstream`). */
  baseUrlVariable: string;
  /** The provider prefix of the price table (`anthropic:claude-…`). */
  priceProvider: 'anthropic' | 'openai' | 'google';
  /** Login folders of the person's home given to it as a private copy. */
  loginEntries: readonly string[];
  /**
   * Where its own sign-in sends its calls, when not to the model endpoint the proxy stands for
   * (then it cannot be metered, and a run without the person's key is refused); none when its
   * sign-in's token goes to that same endpoint through the proxy.
   */
  signInElsewhere?: string;
  /**
   * The agent's variables: its model at `base` (the proxy's port in its sandbox), quiet, in its
   * most-asking setting. `personKey`: the proxy puts the person's key on every call, so the agent
   * is given a placeholder; without it, an agent that can use its own sign-in is given none,
   * which would shadow that sign-in.
   */
  env(base: string, personKey: boolean): Record<string, string>;
  /** Files written into its private home before each start (Codex's provider configuration). */
  prepareHome?(home: string, base: string): void;
}

const PLACEHOLDER_KEY = 'deepdesk-metered';

export const KNOWN_AGENTS: readonly KnownAgent[] = [
  {
    name: 'claude-code',
    label: 'Claude Code',
    packageName: '@zed-industries/claude-code-acp',
    version: '0.16.2',
    script: 'dist/index.js',
    args: [],
    api: 'anthropic',
    upstream: 'https://api.anthropic.com',
    keyHeader: 'x-api-key',
    keyVariable: 'ANTHROPIC_API_KEY',
    baseUrlVariable: 'ANTHROPIC_BASE_URL',
    priceProvider: 'anthropic',
    loginEntries: ['.claude', '.claude.json'],
    // Its `default` permission mode is the adapter's own default (most asking).
    // Its own sign-in (a Claude subscription: `.claude/.credentials.json`) sends its token to the same base.
    env: (base, personKey) => ({
      ANTHROPIC_BASE_URL: base,
      ...(personKey ? { ANTHROPIC_API_KEY: PLACEHOLDER_KEY } : {}),
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_ERROR_REPORTING: '1',
    }),
  },
  {
    name: 'codex',
    label: 'Codex',
    packageName: '@zed-industries/codex-acp',
    version: '0.16.0',
    script: 'bin/codex-acp.js',
    args: [],
    api: 'openai-responses',
    upstream: 'https://api.openai.com',
    keyHeader: 'authorization',
    keyVariable: 'OPENAI_API_KEY',
    baseUrlVariable: 'OPENAI_BASE_URL',
    priceProvider: 'openai',
    loginEntries: ['.codex'],
    signInElsewhere: "ChatGPT's own endpoint",
    env: () => ({ OPENAI_API_KEY: PLACEHOLDER_KEY }),
    // Codex reads no base-URL variable: its own provider configuration, in its most-asking setting.
    prepareHome: (home, base) => {
      const codexHome = join(home, '.codex');
      mkdirSync(codexHome, { recursive: true });
      writeFileSync(
        join(codexHome, 'config.toml'),
        [
          'model_provider = "deepdesk"',
          'approval_policy = "untrusted"',
          // Its own bubblewrap cannot nest inside Deepdesk's (no user namespaces there): Deepdesk's
          // sandbox holds its whole tree instead, and it still asks before what it does not deem safe.
          'sandbox_mode = "danger-full-access"',
          '',
          '[model_providers.deepdesk]',
          'name = "Deepdesk metered"',
          `base_url = "${base}/v1"`,
          'env_key = "OPENAI_API_KEY"',
          'wire_api = "responses"',
          '',
        ].join('\n'),
      );
    },
  },
  {
    name: 'gemini',
    label: 'Gemini CLI',
    packageName: '@google/gemini-cli',
    version: '0.61.0',
    script: 'bundle/gemini.js',
    args: ['--acp'],
    api: 'gemini',
    upstream: 'https://generativelanguage.googleapis.com',
    keyHeader: 'x-goog-api-key',
    keyVariable: 'GEMINI_API_KEY',
    baseUrlVariable: 'GOOGLE_GEMINI_BASE_URL',
    priceProvider: 'google',
    loginEntries: ['.gemini'],
    signInElsewhere: "Google's Code Assist endpoint",
    env: (base) => ({ GOOGLE_GEMINI_BASE_URL: base, GEMINI_API_KEY: PLACEHOLDER_KEY, GEMINI_CLI_NO_RELAUNCH: 'true' }),
  },
];

/** A command the person added: started as given (contained all the same), its model not metered unless its environment points it at `{{DEEPDESK_MODEL_URL}}`. */
export interface AddedAgent {
  name: string;
  label?: string;
  command: string;
  args: string[];
  env: Record<string, string>;
}

export function knownAgent(name: string): KnownAgent | undefined {
  return KNOWN_AGENTS.find((a) => a.name === name);
}

/** Where a known agent is installed in the data folder, by version (never the project). */
export function installDir(dataDir: string, agent: Pick<KnownAgent, 'name' | 'version'>): string {
  return join(dataDir, 'agents', 'installed', `${agent.name}@${agent.version}`);
}

/** An agent's private home in the data folder (its login copy and its own state: sessions it can load after a restart). */
export function privateHome(dataDir: string, name: string): string {
  return join(dataDir, 'agents', 'homes', name);
}

/** The installed script of a known agent. */
export function agentScript(dataDir: string, agent: KnownAgent, root: string = installDir(dataDir, agent)): string {
  return join(root, 'node_modules', ...agent.packageName.split('/'), agent.script);
}
