// Gemini CLI in its ACP mode (SPEC §22), pointed at the proxy by GOOGLE_GEMINI_BASE_URL; its own
// sign-in goes to Google's Code Assist endpoint, which the proxy does not stand for. Its request for
// a shell command has the command as its title (no `rawInput`); a write names its file in `locations`.
// Its model is in the request's path (`models/NAME:streamGenerateContent`), not its body.
import { asObject, editJsonFile, GEMINI, PLACEHOLDER_KEY, removeInHome, requestShape, type KnownAgent } from './vendor';

export const gemini: KnownAgent = {
  name: 'gemini',
  label: 'Gemini CLI',
  packageName: '@google/gemini-cli',
  version: '0.61.0',
  script: 'bundle/gemini.js',
  args: ['--acp'],
  ...GEMINI,
  // Its default model, and the one its router picks for a simple turn.
  defaultModels: ['gemini-2.5-pro', 'gemini-2.5-flash'],
  loginEntries: ['.gemini'],
  configPaths: ['/.gemini'],
  signInElsewhere: "Google's Code Assist endpoint",
  env: (base) => ({ GOOGLE_GEMINI_BASE_URL: base, GEMINI_API_KEY: PLACEHOLDER_KEY, GEMINI_CLI_NO_RELAUNCH: 'true' }),
  withoutAllowRules: (home) => {
    editJsonFile(home, '.gemini/settings.json', (json) => {
      delete json.policyPaths;
      for (const part of [json, asObject(json.tools), asObject(json.general), asObject(json.mcp)]) {
        for (const key of ['allowed', 'autoAccept', 'approvalMode', 'defaultApprovalMode', 'autoAllowInHeadless']) delete part?.[key];
      }
      for (const server of Object.values(asObject(json.mcpServers) ?? {})) delete asObject(server)?.trust;
    });
    // Its policy files (its "always allow" is saved there too): left out whole, as Codex's rules are (Deepdesk's rules decide).
    removeInHome(home, '.gemini/policies');
  },
  describeRequest: requestShape([], []),
  requestModel: (path) => /\/models\/([^/:?]+)/.exec(path)?.[1] ?? 'unknown',
};
