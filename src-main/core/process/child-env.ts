// What a process Deepdesk starts inherits from Deepdesk's environment, per kind of process.
// The default (spawn.ts uses it whenever a caller names no environment) is an allow-list:
// the variables that say who and where the person is and how text is shown, nothing else.
// A kind that needs more opts in by name here: git its own variables, ssh its agent's
// socket, the system's opener the desktop session. The person's own commands (the agent's
// `execute`, the terminal, hooks, MCP servers) get the person's environment minus Deepdesk's
// credentials instead (shell-env.ts sanitizeEnv); the agent host is Deepdesk itself and is
// started with Deepdesk's environment. Whatever the kind, a name or value of Deepdesk's
// credentials (shell-env.ts isAppSecret) is dropped here too.
import { isAppSecret } from './app-secrets';

type Names = ReadonlyArray<string | RegExp>;

/** Who and where the person is, how text is shown: what every process may see. */
const BASE: Names = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  /^LC_[A-Z]+$/,
  'TERM',
  'TMPDIR',
  'TZ',
  // Windows needs these to start anything at all.
  'SYSTEMROOT',
  'WINDIR',
  'COMSPEC',
  'PATHEXT',
  'USERPROFILE',
  'APPDATA',
  'LOCALAPPDATA',
];

/**
 * ssh (remote folders, and git over ssh): the agent's socket (keys held by ssh-agent, or by a
 * password manager's agent) and a Kerberos ticket cache (GSSAPI logins). SSH_ASKPASS is not
 * passed: BatchMode is always on, nothing is asked.
 */
const SSH: Names = ['SSH_AUTH_SOCK', 'SSH_AGENT_PID', 'KRB5CCNAME', 'KRB5_CONFIG'];

/** How the person reaches the network (git fetching a marketplace): their proxy and certificate authorities. */
const NETWORK: Names = [/^(http|https|ftp|all|no)_proxy$/i, 'SSL_CERT_FILE', 'SSL_CERT_DIR', 'CURL_CA_BUNDLE'];

/**
 * git: its own variables (gitEnv then removes those that relocate the repository), where
 * its configuration and signing keys are, the person's credential manager (its settings, and
 * the session bus a keyring helper such as libsecret asks), ssh's and the network's — the
 * person's credentials and config apply (SPEC §11).
 */
const GIT: Names = [/^GIT_/, 'XDG_CONFIG_HOME', 'GNUPGHOME', /^GCM_/, 'DBUS_SESSION_BUS_ADDRESS', 'XDG_RUNTIME_DIR', ...SSH, ...NETWORK];

/** The system's opener (xdg-open, open): the desktop session it hands the address to. */
const OPENER: Names = ['DISPLAY', 'WAYLAND_DISPLAY', 'DBUS_SESSION_BUS_ADDRESS', 'XAUTHORITY', /^XDG_/, 'BROWSER'];

/** npm installing an external agent (SPEC §22): the person's registry settings and the network's. */
const NPM: Names = [/^npm_config_/i, 'NODE_EXTRA_CA_CERTS', ...NETWORK];

/** The kinds that opt in to more than the base. */
export const ENV_OPT_INS = { ssh: SSH, git: GIT, opener: OPENER, npm: NPM } as const;

/**
 * The allow-listed environment: the base names and `optIn`'s, taken from `from` (default
 * process.env), without Deepdesk's credentials however they are named.
 */
export function allowedEnv(optIn: Names = [], from: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const names = [...BASE, ...optIn];
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(from)) {
    // Windows spells them as it likes (`Path`): its names are matched without case.
    const name = process.platform === 'win32' ? key.toUpperCase() : key;
    if (value === undefined || !names.some((n) => (typeof n === 'string' ? n === name : n.test(name)))) continue;
    if (isAppSecret(key, value)) continue;
    env[key] = value;
  }
  return env;
}

/** ssh's environment (remote folders): the base and SSH's names. */
export function sshEnv(from: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return allowedEnv(ENV_OPT_INS.ssh, from);
}
