// The environment commands run in: the user's own environment with the PATH their login
// shell sets up (an app started from a desktop launcher often has a bare PATH), made
// non-interactive so that nothing waits for a prompt nobody will answer.
import { MIN_WITHHELD_LENGTH, isAppSecret } from './app-secrets';
import { killProcessTree } from './process-tree';
import { spawnPipe } from './spawn';
import { existsSync } from 'node:fs';
import { basename } from 'node:path';

/** Set for every command. Colours stay allowed: the terminal view shows them and the text result is stripped. */
export const NON_INTERACTIVE_ENV: Readonly<Record<string, string>> = {
  CI: '1',
  TERM: 'xterm-256color',
  GIT_TERMINAL_PROMPT: '0',
  GIT_PAGER: 'cat',
  PAGER: 'cat',
  MANPAGER: 'cat',
  GIT_EDITOR: 'true',
  EDITOR: 'true',
  VISUAL: 'true',
  DEBIAN_FRONTEND: 'noninteractive',
  PIP_NO_INPUT: '1',
  npm_config_yes: 'true',
  HOMEBREW_NO_AUTO_UPDATE: '1',
  GCM_INTERACTIVE: 'never',
};

/** Variables that would tell a command it runs in another terminal, or that leak our own runtime. */
const DROPPED = new Set([
  'ELECTRON_RUN_AS_NODE',
  'ELECTRON_NO_ASAR',
  'ELECTRON_NO_ATTACH_CONSOLE',
  'INIT_CWD',
  'SSH_ASKPASS',
  'PS1',
  'PROMPT_COMMAND',
  'COLUMNS',
  'LINES',
  'TERM_PROGRAM',
  'TERM_PROGRAM_VERSION',
  'TERM_SESSION_ID',
  'ITERM_SESSION_ID',
  'ITERM_PROFILE',
  'VTE_VERSION',
  'WINDOWID',
  'TMUX',
  'TMUX_PANE',
  'STY',
  'WINDOW',
]);

const LOGIN_SHELL_TIMEOUT_MS = 3000;
/**
 * How long a login shell that did not answer in time may go on before it is hung up. Its profile
 * scripts are left to end by themselves: any signal while they run can leave what they hold (pyenv's
 * rehash takes its lock before it sets the trap that releases it; every later shell then waits 60 s).
 */
const LOGIN_SHELL_BACKSTOP_MS = 60_000;
const PATH_MARK = '__DEEPDESK_LOGIN_PATH__';

let loginPathPromise: Promise<string | undefined> | undefined;

/**
 * The PATH of the user's login shell, asked once per process (`$SHELL -ilc`, 3 s at most);
 * undefined when it cannot be had. Interactive too, because many people extend PATH in
 * ~/.bashrc or ~/.zshrc, which a non-interactive login shell skips.
 */
export function getLoginShellPath(): Promise<string | undefined> {
  loginPathPromise ??= askLoginShellPath(process.env.SHELL);
  return loginPathPromise;
}

export async function askLoginShellPath(shell: string | undefined, base: NodeJS.ProcessEnv = process.env, timeoutMs = LOGIN_SHELL_TIMEOUT_MS, backstopMs = LOGIN_SHELL_BACKSTOP_MS): Promise<string | undefined> {
  if (!shell || process.platform === 'win32') return undefined;
  const name = basename(shell);
  if (!['bash', 'zsh', 'fish', 'sh', 'dash', 'ksh', 'mksh'].includes(name)) return undefined;
  const flags = name === 'bash' || name === 'zsh' ? '-ilc' : '-lc';
  // The marks cut the PATH out of whatever the profile scripts print themselves.
  const script = `printf '${PATH_MARK}%s${PATH_MARK}' "$PATH"`;
  // From the home folder, as a terminal's: one PATH for every folder, no project's files (`.nvmrc`, `.rvmrc`) read by the profile.
  const home = base.HOME?.startsWith('/') === true && existsSync(base.HOME) ? base.HOME : '/';
  return new Promise((resolve) => {
    let out = '';
    let settled = false;
    let child: ReturnType<typeof spawnPipe>;
    const done = (value: string | undefined): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(value);
    };
    const timer = setTimeout(() => done(undefined), timeoutMs);
    try {
      child = spawnPipe({ role: 'login', file: shell, args: [flags, script], cwd: home, stdio: ['ignore', 'pipe', 'ignore'], detached: true, env: { ...sanitizeEnv(base), TERM: 'dumb' } });
    } catch {
      clearTimeout(timer);
      resolve(undefined);
      return;
    }
    // Hung up as a closed terminal is (never SIGKILL, which skips EXIT traps), its group with it.
    const backstop = setTimeout(() => {
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) void killProcessTree(child.pid, { hangUp: true }).catch(() => undefined);
    }, backstopMs).unref();
    child.on('exit', () => clearTimeout(backstop));
    // Only the wait (the timer) keeps this process up: once answered or out of time, the shell may end after it.
    child.unref();
    (child.stdout as { unref?: () => void } | null)?.unref?.();
    child.on('error', () => done(undefined));
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      out += chunk;
      const start = out.indexOf(PATH_MARK);
      const end = start === -1 ? -1 : out.indexOf(PATH_MARK, start + PATH_MARK.length);
      if (end !== -1) {
        const path = out.slice(start + PATH_MARK.length, end);
        done(path.length > 0 ? path : undefined);
      }
    });
    // 'close' comes after all output was read, so the marks would have been seen by then.
    child.on('close', () => done(undefined));
  });
}

/** The user's environment without the variables in DROPPED, the app's secrets, npm's script variables and unset values. */
export function sanitizeEnv(base: NodeJS.ProcessEnv): Record<string, string> {
  const fromNpmScript = base.npm_lifecycle_event !== undefined;
  const env: Record<string, string> = {};
  // A credential's value under another name (`MY_DB_PASS=$PGPASSWORD`) is withheld too.
  const secretValues = Object.entries(base).flatMap(([key, value]) => (value !== undefined && value.trim().length >= MIN_WITHHELD_LENGTH && isAppSecret(key, value) ? [value.trim()] : []));
  for (const [key, value] of Object.entries(base)) {
    if (value === undefined || DROPPED.has(key) || key.startsWith('npm_') || isAppSecret(key, value)) continue;
    if (secretValues.some((secret) => value.includes(secret))) continue;
    env[key] = value;
  }
  if (fromNpmScript) {
    // `npm run` also sets NODE and puts node_modules/.bin folders in front of PATH.
    delete env.NODE;
    if (env.PATH) {
      env.PATH = env.PATH.split(':')
        .filter((dir) => !/[/\\]node_modules[/\\]\.bin$/.test(dir) && !/node-gyp-bin$/.test(dir))
        .join(':');
    }
  }
  return env;
}

/**
 * The login shell's PATH, preceded by the folders only our own PATH has: started from a
 * terminal with a virtualenv or similar activated, those stay first, as the person expects;
 * started from a desktop launcher, our bare PATH adds nothing and the login PATH is used.
 */
export function mergePath(own: string | undefined, login: string): string {
  const loginDirs = login.split(':').filter(Boolean);
  const known = new Set(loginDirs);
  const ownOnly = (own ?? '').split(':').filter((dir) => dir && !known.has(dir));
  return [...new Set([...ownOnly, ...loginDirs])].join(':');
}

/** The environment for one command (see NON_INTERACTIVE_ENV); `base` defaults to process.env. */
export async function buildCommandEnv(base: NodeJS.ProcessEnv = process.env): Promise<Record<string, string>> {
  const env = await buildProcessEnv(base);
  Object.assign(env, NON_INTERACTIVE_ENV);
  return env;
}

/**
 * What every process Deepdesk starts for the agent or a folder begins with, the one base
 * (commands through buildCommandEnv, MCP servers and hooks through the supervisor's
 * buildServerEnv): the user's environment without Deepdesk's credentials (sanitizeEnv), the
 * login shell's PATH, a UTF-8 locale, and ssh that never prompts.
 */
export async function buildProcessEnv(base: NodeJS.ProcessEnv = process.env): Promise<Record<string, string>> {
  const env = sanitizeEnv(base);
  const loginPath = await getLoginShellPath();
  if (loginPath) env.PATH = mergePath(env.PATH, loginPath);
  else if (!env.PATH) env.PATH = '/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin';
  if (!env.LANG && !env.LC_ALL && !env.LC_CTYPE) {
    env.LANG = process.platform === 'darwin' ? 'en_US.UTF-8' : 'C.UTF-8';
  }
  // ssh asks about unknown host keys on the terminal; a command nobody watches would hang.
  if (!env.GIT_SSH_COMMAND && !env.GIT_SSH) env.GIT_SSH_COMMAND = 'ssh -o BatchMode=yes';
  return env;
}
