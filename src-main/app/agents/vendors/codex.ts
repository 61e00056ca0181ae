// Codex through Zed's ACP adapter (SPEC §22). It reads no base-URL variable: its own provider
// configuration (`config.toml` in its private home) points it at the proxy, in its most-asking
// setting. It runs every patch and command in its own process; its request names the command as
// an argv in `rawInput.command` (`bash -lc SCRIPT`: the script) and a patch's files in `locations`
// and `rawInput.changes`.
import { asObject, OPENAI, PLACEHOLDER_KEY, removeInHome, requestShape, writeInHome, type KnownAgent } from './vendor';

const commandShape = requestShape(['command', 'cmd'], []);

export const codex: KnownAgent = {
  name: 'codex',
  label: 'Codex',
  packageName: '@zed-industries/codex-acp',
  version: '0.16.0',
  script: 'bin/codex-acp.js',
  ...OPENAI,
  defaultModels: ['gpt-5.5'],
  loginEntries: ['.codex'],
  configPaths: ['/.codex'],
  signInElsewhere: "ChatGPT's own endpoint",
  env: () => ({ OPENAI_API_KEY: PLACEHOLDER_KEY }),
  // Its rules files allow a command prefix unless they say otherwise: left out whole (Deepdesk's rules decide).
  withoutAllowRules: (home) => removeInHome(home, '.codex/rules'),
  configureHome: (home, base) => {
    // The person's config.toml (its approval policy, trusted projects) is replaced by this one.
    writeInHome(
      home,
      '.codex/config.toml',
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
  describeRequest: (call) => {
    const read = commandShape(call);
    // A patch names each file it changes as a key of `rawInput.changes`; a move's source is only there (`locations` has where it goes).
    return { ...read, paths: [...new Set([...read.paths, ...Object.keys(asObject(asObject(call.rawInput)?.changes) ?? {})])] };
  },
};
