// Claude Code through Zed's ACP adapter (SPEC §22). Its Messages calls go to ANTHROPIC_BASE_URL,
// so the proxy stands there, and its own sign-in (a Claude subscription, `.claude/.credentials.json`)
// sends its token to the same base. Its `default` permission mode is the adapter's own default
// (most asking). Its request names the Bash command as a string in `rawInput.command` and a file in
// `file_path`, `notebook_path` or (Grep, Glob) `path`; the kind is only in the earlier `tool_call`.
import { ANTHROPIC, asObject, editJsonFile, PLACEHOLDER_KEY, requestShape, type KnownAgent } from './vendor';

export const claudeCode: KnownAgent = {
  name: 'claude-code',
  label: 'Claude Code',
  gitAiTool: 'claude',
  packageName: '@zed-industries/claude-code-acp',
  version: '0.16.2',
  script: 'dist/index.js',
  ...ANTHROPIC,
  // The main model, and the small one of its side calls (a title, a summary).
  defaultModels: ['claude-sonnet-4-5-20250929', 'claude-haiku-4-5-20251001'],
  loginEntries: ['.claude', '.claude.json'],
  env: (base, personKey) => ({
    ANTHROPIC_BASE_URL: base,
    ...(personKey ? { ANTHROPIC_API_KEY: PLACEHOLDER_KEY } : {}),
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
  }),
  // With IS_SANDBOX set, its adapter skips every permission (and its CLI refuses that as root).
  droppedEnv: ['IS_SANDBOX'],
  withoutAllowRules: (home) => {
    editJsonFile(home, '.claude/settings.json', (json) => {
      const permissions = asObject(json.permissions);
      delete permissions?.allow;
      delete permissions?.defaultMode;
    });
    // Tools it was told to allow in a project, kept in its state file.
    editJsonFile(home, '.claude.json', (json) => {
      for (const project of Object.values(asObject(json.projects) ?? {})) delete asObject(project)?.allowedTools;
    });
  },
  describeRequest: requestShape(['command'], ['file_path', 'notebook_path', 'path']),
};
