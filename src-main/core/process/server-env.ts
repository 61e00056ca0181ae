// The environment of a supervised process (an MCP stdio server): the base every process of
// the agent's gets (no app secrets, the login PATH), non-interactive as commands are, but
// with no terminal: its stdout carries JSON-RPC, so nothing may be told to colour it.
import { buildProcessEnv, NON_INTERACTIVE_ENV } from './shell-env';

/** Variables that force colour (escapes) onto output that is not a terminal. */
const COLOUR_FORCING = ['FORCE_COLOR', 'CLICOLOR_FORCE', 'COLORTERM'];

export async function buildServerEnv(base: NodeJS.ProcessEnv = process.env): Promise<Record<string, string>> {
  const env = await buildProcessEnv(base);
  for (const name of COLOUR_FORCING) delete env[name];
  Object.assign(env, NON_INTERACTIVE_ENV, { TERM: 'dumb', NO_COLOR: '1' });
  return env;
}
