// OpenCode in its ACP mode (SPEC §22): a program of its own, from its platform's package. It reads
// its whole configuration from OPENCODE_CONFIG_CONTENT, over the person's: Anthropic's provider at
// the proxy, its models named, and its `permission` asking before edits, commands and fetches. Its
// request names the command in `rawInput.command` and a file in `filePath` / `filepath` (and
// `locations`, which for a command is its working folder). Its `usage_update` carries a `cost`.
import { arch, platform } from 'node:process';
import { ANTHROPIC, asObject, editJsonFile, PLACEHOLDER_KEY, requestShape, type KnownAgent } from './vendor';

const ASK = { edit: 'ask', bash: 'ask', webfetch: 'ask', external_directory: 'ask' };

export const opencode: KnownAgent = {
  name: 'opencode',
  label: 'OpenCode',
  packageName: `opencode-${platform === 'win32' ? 'windows' : platform}-${arch}`,
  version: '1.18.33',
  script: 'bin/opencode',
  native: true,
  args: ['acp'],
  ...ANTHROPIC,
  // Its model, and the small one of its title calls.
  defaultModels: ['claude-sonnet-4-5', 'claude-haiku-4-5'],
  loginEntries: ['.config/opencode', '.local/share/opencode/auth.json'],
  configPaths: ['/.opencode', '/opencode.json', '/opencode.jsonc'],
  env: (base, personKey) => ({
    OPENCODE_CONFIG_CONTENT: JSON.stringify({
      model: 'anthropic/claude-sonnet-4-5',
      small_model: 'anthropic/claude-haiku-4-5',
      provider: { anthropic: { options: { baseURL: `${base}/v1`, ...(personKey ? { apiKey: PLACEHOLDER_KEY } : {}) } } },
      permission: ASK,
      autoupdate: false,
      share: 'disabled',
    }),
    OPENCODE_DISABLE_MODELS_FETCH: 'true',
    OPENCODE_DISABLE_AUTOUPDATE: 'true',
  }),
  withoutAllowRules: (home) => {
    editJsonFile(home, '.config/opencode/opencode.json', (json) => {
      delete json.permission;
      for (const agent of Object.values(asObject(json.agent) ?? {})) delete asObject(agent)?.permission;
    });
  },
  describeRequest: requestShape(['command', 'cmd'], ['filePath', 'filepath']),
};
