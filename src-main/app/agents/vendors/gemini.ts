// Gemini CLI in its ACP mode (SPEC §22), pointed at the proxy by GOOGLE_GEMINI_BASE_URL; its own
// sign-in goes to Google's Code Assist endpoint, which the proxy does not stand for. Its request for
// a shell command has the command as its title (no `rawInput`); a write names its file in `locations`.
// Its model is in the request's path (`models/NAME:streamGenerateContent`), not its body.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { asObject, editJsonFile, GEMINI, PLACEHOLDER_KEY, requestShape, type KnownAgent } from './vendor';

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
  signInElsewhere: "Google's Code Assist endpoint",
  env: (base) => ({ GOOGLE_GEMINI_BASE_URL: base, GEMINI_API_KEY: PLACEHOLDER_KEY, GEMINI_CLI_NO_RELAUNCH: 'true' }),
  withoutAllowRules: (home) => {
    editJsonFile(join(home, '.gemini', 'settings.json'), (json) => {
      for (const part of [json, asObject(json.tools), asObject(json.general)]) {
        for (const key of ['allowed', 'autoAccept', 'approvalMode', 'defaultApprovalMode']) delete part?.[key];
      }
    });
    // Its policy files' `allow` rules (its "always allow" is saved there too).
    const policies = join(home, '.gemini', 'policies');
    for (const file of existsSync(policies) ? readdirSync(policies).filter((f) => f.endsWith('.toml')) : []) {
      const rules = readFileSync(join(policies, file), 'utf8').split(/^(?=[ \t]*\[\[)/m);
      writeFileSync(join(policies, file), rules.filter((rule) => !/^\s*decision\s*=\s*["']allow["']/m.test(rule)).join(''));
    }
  },
  describeRequest: requestShape([], []),
  requestModel: (path) => /\/models\/([^/:?]+)/.exec(path)?.[1] ?? 'unknown',
};
