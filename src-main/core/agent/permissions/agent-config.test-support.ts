// Other agents' configuration in a project folder, as the app's catalog of vendors gives it
// (app/agents/vendors: AGENT_CONFIG_PATHS; its test checks the two agree): what core's tests
// run with, as a run of the app's does.
export const AGENT_CONFIG = ['/.codex', '/.gemini', '/.opencode', '/opencode.json', '/opencode.jsonc', '/.cursor', '/.zed', '/.continue', '/.goose', '/.windsurfrules'];
