// What one simple command does, judged from its decoded words: which wrappers it goes
// through (peeled so rules see the program that really runs), whether it makes bash
// evaluate data as code, which variables it sets, and which commands and shell strings it
// runs in turn. Pure; shell-parse.ts does the parsing and the recursion, and
// command-effects.ts says which forms of a program write or execute.
import { escalationOf } from './command-effects';
import type { ArgWord } from './arg-word';
import { baseName } from '../../backends/paths';

export interface CommandInspection {
  /** The words rules match: the command with its wrappers peeled off (`git -C x push` → `git push`). */
  matched: ArgWord[];
  /** Human-readable reasons why this command must always ask. */
  reasons: string[];
  /** Shell source this command runs (the string of `sh -c`, `eval`, …), to be analysed too. */
  scripts: string[];
  /** Commands this command runs (after `sudo`, `xargs`, `find -exec`, …), to be analysed too. */
  inner: ArgWord[][];
  /** Why allow rules do not cover this form (it writes or executes); see command-effects.ts. */
  escalation?: string;
}

// ---------------------------------------------------------------------------------------
// Variables

// Setting these changes which program or code runs, or how bash reads what follows.
const DANGEROUS_VARIABLES = new Set([
  'PATH', 'BASH_ENV', 'ENV', 'SHELLOPTS', 'BASHOPTS', 'PS1', 'PS2', 'PS3', 'PS4', 'PROMPT_COMMAND', 'IFS', 'HOME', 'ZDOTDIR',
  'CDPATH', 'GLOBIGNORE', 'EXECIGNORE', 'FUNCNEST', 'BASH_COMPAT', 'BASH_XTRACEFD', 'BASH_LOADABLES_PATH', 'POSIXLY_CORRECT',
  'HISTFILE', 'HOSTFILE', 'INPUTRC', 'MAILPATH', 'MAIL', 'TMOUT', 'TMPDIR', 'SHELL', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME',
  'NODE_OPTIONS', 'NODE_PATH', 'PERL5OPT', 'PERL5LIB', 'PERLLIB', 'RUBYOPT', 'RUBYLIB', 'JAVA_TOOL_OPTIONS', '_JAVA_OPTIONS',
  'JDK_JAVA_OPTIONS', 'SSH_ASKPASS', 'SUDO_ASKPASS', 'PAGER', 'MANPAGER', 'MANOPT', 'LESS', 'LESSOPEN', 'LESSCLOSE', 'LESSKEY',
  'EDITOR', 'VISUAL', 'BROWSER', 'RUSTC_WRAPPER', 'RUSTC', 'RUSTDOCFLAGS', 'RUSTFLAGS', 'CC', 'CXX', 'LD', 'MAKEFLAGS', 'MFLAGS',
  'RIPGREP_CONFIG_PATH', 'GREP_OPTIONS', 'TAR_OPTIONS', 'GZIP', 'XZ_OPT', 'ZSTD_CLEVEL', 'CURL_HOME', 'WGETRC', 'SSL_CERT_FILE',
  'SYSTEMD_PAGER', 'SYSTEMD_EDITOR', 'OPENSSL_CONF', 'TERMINFO', 'NPM_CONFIG_USERCONFIG', 'COMP_WORDBREAKS',
]);
const DANGEROUS_PREFIXES = [
  'LD_', 'DYLD_', 'GIT_', 'BASH_', 'PYTHON', 'NODE_', 'npm_config_', 'NPM_CONFIG_', 'CARGO_', 'GCONV_', 'PERL', 'RUBY', 'LUA_',
  'JULIA_', 'DOCKER_', 'KUBE', 'SSH_', 'GNUPG', 'GPG_', 'MALLOC_', 'GLIBC_', 'JAVA_', 'CLASSPATH', 'R_', 'PIP_', 'UV_', 'POETRY_',
  'YARN_', 'PNPM_', 'BUN_', 'DENO_', 'GOFLAGS', 'GOROOT', 'GOPATH', 'GOPROXY', 'GOTOOLCHAIN', 'CGO_', 'COMP_', 'READLINE',
];

/** Variables that only change formatting, language or verbosity: fine as prefixes and exports. */
const INERT_VARIABLES = new Set([
  'CI', 'NODE_ENV', 'LANG', 'LANGUAGE', 'TZ', 'TERM', 'NO_COLOR', 'FORCE_COLOR', 'CLICOLOR', 'CLICOLOR_FORCE', 'COLUMNS', 'LINES',
  'RUST_BACKTRACE', 'RUST_LOG', 'PYTHONUNBUFFERED', 'PYTHONDONTWRITEBYTECODE', 'PYTHONIOENCODING', 'NODE_NO_WARNINGS',
  'CARGO_TERM_COLOR', 'DEBUG', 'VERBOSE',
]);

function isDangerousVariable(name: string): boolean {
  return (DANGEROUS_VARIABLES.has(name) || DANGEROUS_PREFIXES.some((p) => name.startsWith(p))) && !INERT_VARIABLES.has(name);
}

function isInertVariable(name: string): boolean {
  return INERT_VARIABLES.has(name) || /^LC_[A-Z]+$/.test(name);
}

/**
 * Why setting `name` must ask, or null. `exported`: it reaches the environment of a
 * command (a prefix `X=1 cmd`, `export`, `env X=1`), where only known-inert variables pass.
 * A plain shell assignment may also set a lower-case variable (never special to bash nor,
 * by convention, read by programs); upper-case ones may already be exported.
 */
export function shellAssignmentReason(name: string, exported = false): string | null {
  if (isInertVariable(name)) return null;
  if (isDangerousVariable(name)) return `sets ${name}, which can change what a command runs`;
  if (exported) return `sets ${name} in a command's environment; only known-inert variables (CI, LANG, LC_*, TZ, …) are allowed without asking`;
  if (/[a-z]/.test(name)) return null;
  return `sets ${name}, an upper-case variable that programs or bash may read`;
}

/**
 * Variables that name where a program imports code from. Set in a command's environment to
 * folders inside the project (relative, no `..`, no `~`), they add nothing a command there
 * does not do anyway (`python -m pytest` imports the folder's code from where it runs); any
 * other value (absolute, leaving the folder, computed) asks as the DANGEROUS ones do.
 */
const FOLDER_PATH_VARIABLES = new Set(['PYTHONPATH', 'NODE_PATH']);

/** A `:`-separated list of folders, each relative and inside where the command runs. */
function insideFolder(value: string): boolean {
  return value.split(':').every((entry) => /^[A-Za-z0-9_.+@/-]+$/.test(entry) && !entry.startsWith('/') && !entry.split('/').includes('..'));
}

/**
 * Why `NAME=value` before a command (or after `env`) must ask, or null when it is harmless:
 * a known-inert variable, or an import path inside the folder. `value` is null when it is
 * computed when the command runs. Everything else asks (shellAssignmentReason).
 */
export function prefixAssignmentReason(name: string, value: string | null): string | null {
  if (value !== null && FOLDER_PATH_VARIABLES.has(name) && insideFolder(value)) return null;
  if (FOLDER_PATH_VARIABLES.has(name)) return `sets ${name} to ${value === null ? 'a value computed when it runs' : 'folders outside the project'}, which changes what code a command runs`;
  return shellAssignmentReason(name, true);
}

const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)(\[)?(\+?=)?/;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

// ---------------------------------------------------------------------------------------
// Options

interface OptionSpec {
  /** Short options without a value. */
  flags?: string;
  /** Short options that take a value (the rest of the cluster or the next word). */
  values?: string;
  long?: string[];
  /** Long options that take a value (`--x=v` or `--x v`). */
  longValues?: string[];
}

interface ParsedOptions {
  /** Index of the first operand (after `--` when there is one). */
  next: number;
  /** The options seen, by their canonical name (`-x` or `--long`), with their values. */
  seen: [string, string | null][];
}

/**
 * Reads the options of a command that starts at `args[from]`. An option it does not know,
 * or a computed word among them, makes it ask (`fail`) and returns null. GNU-style
 * abbreviations of long options are resolved when unique.
 */
function readOptions(args: readonly ArgWord[], from: number, spec: OptionSpec, fail: (why: string) => void): ParsedOptions | null {
  const seen: [string, string | null][] = [];
  const longs = [...(spec.long ?? []), ...(spec.longValues ?? [])];
  let i = from;
  while (i < args.length) {
    const word = args[i]!;
    if (word.dynamic) {
      fail(`a computed word (\`${word.value}\`) where options may be`);
      return null;
    }
    const v = word.value;
    if (v === '--') return { next: i + 1, seen };
    if (!v.startsWith('-') || v === '-') break;
    if (v.startsWith('--')) {
      const eq = v.indexOf('=');
      const given = v.slice(2, eq < 0 ? undefined : eq);
      const matches = longs.filter((l) => l === given || l.startsWith(given));
      const name = longs.includes(given) ? given : matches.length === 1 ? matches[0]! : null;
      if (name === null) {
        fail(`the option \`--${given}\` is not known`);
        return null;
      }
      if (spec.longValues?.includes(name)) {
        if (eq >= 0) seen.push([`--${name}`, v.slice(eq + 1)]);
        else {
          const value = args[i + 1];
          if (value?.dynamic) return fail(`a computed value of \`--${name}\``), null;
          seen.push([`--${name}`, value?.value ?? null]);
          i++;
        }
      } else if (eq >= 0) {
        fail(`the option \`--${name}\` takes no value`);
        return null;
      } else seen.push([`--${name}`, null]);
      i++;
      continue;
    }
    let k = 1;
    for (; k < v.length; k++) {
      const letter = v.charAt(k);
      if (spec.values?.includes(letter)) {
        if (k + 1 < v.length) seen.push([`-${letter}`, v.slice(k + 1)]);
        else {
          const value = args[i + 1];
          if (value?.dynamic) return fail(`a computed value of \`-${letter}\``), null;
          seen.push([`-${letter}`, value?.value ?? null]);
          i++;
        }
        break;
      }
      if (!spec.flags?.includes(letter)) {
        fail(`the option \`-${letter}\` is not known`);
        return null;
      }
      seen.push([`-${letter}`, null]);
    }
    i++;
  }
  return { next: i, seen };
}

// ---------------------------------------------------------------------------------------
// Wrappers: commands that run their operands as a command.

interface Wrapper {
  options: OptionSpec;
  /** Operands before the command (the duration of `timeout`, the lock file of `flock`, …). */
  leading?: number;
  /** Options after which there is no command (`ionice -p PID`). */
  noCommand?: string[];
}

// These do not change what the program does with its arguments: peeled before rules match.
const TRANSPARENT: Record<string, Wrapper> = {
  nice: { options: { flags: '0123456789', values: 'n', longValues: ['adjustment'] } },
  ionice: { options: { flags: 't', values: 'cnpPu', long: ['ignore'], longValues: ['class', 'classdata', 'pid', 'pgid', 'uid'] }, noCommand: ['-p', '-P', '-u', '--pid', '--pgid', '--uid'] },
  timeout: { options: { flags: 'v', values: 'sk', long: ['foreground', 'preserve-status', 'verbose'], longValues: ['signal', 'kill-after'] }, leading: 1 },
  nohup: { options: {} },
  stdbuf: { options: { values: 'ioe', longValues: ['input', 'output', 'error'] } },
  setsid: { options: { flags: 'cfw', long: ['ctty', 'fork', 'wait'] } },
  chrt: { options: { flags: 'bdfiormRav', values: 'TPD', long: ['batch', 'deadline', 'fifo', 'idle', 'other', 'rr', 'reset-on-fork', 'all-tasks', 'max', 'verbose'], longValues: ['sched-runtime', 'sched-period', 'sched-deadline'] }, leading: 1, noCommand: ['-p', '-m', '--max'] },
  taskset: { options: { flags: 'ac', long: ['all-tasks', 'cpu-list'] }, leading: 1 },
  time: { options: { flags: 'pqv', long: ['portability', 'quiet', 'verbose'], values: 'f', longValues: ['format'] } },
  command: { options: { flags: 'p' } },
  builtin: { options: {} },
  exec: { options: { flags: 'cl', values: 'a' } },
  busybox: { options: {} },
  eatmydata: { options: {} },
  unbuffer: { options: { flags: 'p' } },
};

// These run a command in a way rules should not wave through (other users, tracing, a
// shell, a sandbox escape): they always ask, and every command they may run is reported.
const ASKING_WRAPPERS: Record<string, string> = {
  sudo: 'runs a command with elevated privileges', doas: 'runs a command with elevated privileges', pkexec: 'runs a command with elevated privileges',
  run0: 'runs a command with elevated privileges', strace: 'traces a command (and can inject faults and write files)',
  ltrace: 'traces a command', valgrind: 'runs a command under an instrumenting tool', gdb: 'runs a program under a debugger',
  fakeroot: 'runs a command under a fake root', unshare: 'runs a command in new namespaces', chroot: 'runs a command in another root',
  nsenter: 'runs a command in other namespaces', 'systemd-run': 'runs a command as a service', firejail: 'runs a command in another sandbox',
  bwrap: 'runs a command in another sandbox', proot: 'runs a command in another root', torsocks: 'runs a command through a proxy',
  proxychains: 'runs a command through a proxy', proxychains4: 'runs a command through a proxy', 'xvfb-run': 'runs a command with a display',
  'dbus-run-session': 'runs a command in a session', cpulimit: 'runs a command under limits', prlimit: 'runs a command under limits',
  numactl: 'runs a command with a memory policy', catchsegv: 'runs a command', sg: 'runs a command as another group',
  parallel: 'runs commands built from its arguments', xargs: 'runs commands built from its input', nohup: '',
  npx: 'runs a package it may download', bunx: 'runs a package it may download', pnpx: 'runs a package it may download',
  'uvx': 'runs a package it may download', pipx: 'runs a package it may download', at: 'schedules commands', batch: 'schedules commands',
  entr: 'runs a command when files change', nodemon: 'runs a command when files change', ssh: 'runs commands on another machine',
};
delete ASKING_WRAPPERS.nohup;

const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'fish', 'csh', 'tcsh', 'yash', 'posh', 'rbash', 'oksh', 'loksh', 'elvish', 'nu', 'xonsh']);
const POWERSHELLS = new Set(['pwsh', 'powershell', 'pwsh.exe', 'powershell.exe']);
const SAFE_INFO_FLAGS = new Set(['--version', '-V', '--help', '-h']);
const INFO_FLAGS = new Set([...SAFE_INFO_FLAGS, '-v', '-version', '--v8-options']);
const INTERPRETER = /^(python[\d.]*|pypy[\d.]*|node|nodejs|bun|deno|perl|ruby|php|lua|luajit|Rscript|julia|irb|tclsh|wish|guile)$/;
/**
 * Flags that give an interpreter something to run other than code read from its input: node's
 * test runner (the folder's test files) and package scripts, php's information, as a script
 * file would. An interpreter given only other flags still reads its input.
 */
const NOT_FROM_INPUT: Partial<Record<string, RegExp>> = { node: /^--(test|run)(=|$)/, nodejs: /^--(test|run)(=|$)/, php: /^-[im]$/ };
const PACKAGE_RUNNERS: Record<string, Set<string>> = {
  npm: new Set(['exec', 'x']), pnpm: new Set(['dlx', 'exec']), yarn: new Set(['dlx', 'exec']), bun: new Set(['x']), uv: new Set(['tool']),
  deno: new Set(['run', 'eval', 'repl', 'x']),
};

// ---------------------------------------------------------------------------------------

export function inspectCommand(argv: readonly ArgWord[]): CommandInspection {
  const result: CommandInspection = { matched: [...argv], reasons: [], scripts: [], inner: [] };
  const ask = (reason: string) => result.reasons.push(reason);

  let words: readonly ArgWord[] = argv;
  for (let guard = 0; words.length > 0; guard++) {
    if (guard === 256) {
      ask('the command nests too many wrappers to be checked');
      break;
    }
    const next = peel(words, result);
    if (next === null || next.length === 0) break;
    words = next;
  }
  result.matched = [...words];
  const first = words[0];
  if (first === undefined) return result;
  if (first.dynamic) return result;
  const name = baseName(first.value);
  const args = words.slice(1);
  const values = args.map((a) => a.value);

  if (name !== first.value && SHELL_BUILTINS.has(name)) {
    // `/bin/echo` is a program, not the builtin; nothing special.
  } else if (SHELL_BUILTINS.has(name)) {
    inspectBuiltin(name, args, result);
  }

  if (SHELLS.has(name)) {
    inspectShell(values, name, result);
  } else if (POWERSHELLS.has(name)) {
    ask(`\`${name}\` runs PowerShell code`);
  } else if (name in ASKING_WRAPPERS) {
    ask(`\`${name}\` ${ASKING_WRAPPERS[name]}`);
    if (name === 'xargs' || name === 'parallel') {
      const end = name === 'parallel' ? values.findIndex((v) => v === ':::' || v === '::::' || v === ':::+') : -1;
      result.inner.push(...suffixes(end < 0 ? args : args.slice(0, end)));
    } else if (name === 'ssh') {
      // The remote command is a shell string on another machine: not ours to analyse.
    } else result.inner.push(...suffixes(args));
  } else if (name === 'su' || name === 'runuser') {
    ask(`\`${name}\` runs commands as another user`);
    const c = values.findIndex((a) => a === '-c' || a === '--command' || /^-[A-Za-z]*c$/.test(a));
    if (c >= 0 && values[c + 1] !== undefined) result.scripts.push(values[c + 1]!);
    result.inner.push(...suffixes(args));
  } else if (name === 'watch') {
    ask('`watch` runs its arguments as a shell command');
    result.scripts.push(operandsAfterOptions(values).join(' '));
    result.inner.push(...suffixes(args));
  } else if (name === 'script') {
    ask('`script` runs a shell (and writes a typescript file)');
    for (let i = 0; i < values.length; i++) {
      const v = values[i]!;
      if (v === '-c' || v === '--command' || /^-[A-Za-z]*c$/.test(v)) {
        if (values[i + 1] !== undefined) result.scripts.push(values[i + 1]!);
      } else if (v.startsWith('--command=')) result.scripts.push(v.slice('--command='.length));
      else if (/^-[A-Za-z]*c./.test(v)) result.scripts.push(v.slice(v.indexOf('c') + 1));
    }
  } else if (name === 'flock') {
    // Reached only when flock was not peeled: `flock … -c STRING` or an unknown form.
    ask('`flock` runs a command in a form that is not analysed');
    for (let i = 0; i < values.length; i++) {
      const v = values[i]!;
      if (v === '-c' || v === '--command') {
        if (values[i + 1] !== undefined) result.scripts.push(values[i + 1]!);
      } else if (v.startsWith('--command=')) result.scripts.push(v.slice('--command='.length));
    }
    result.inner.push(...suffixes(args));
  } else if (name === 'find') {
    inspectFind(args, result);
  } else if (name === 'git') {
    // Global options were peeled (see peelGit); what is left is `git SUBCOMMAND …`.
  } else if (name in PACKAGE_RUNNERS && args[0] !== undefined && PACKAGE_RUNNERS[name]!.has(args[0].value)) {
    ask(`\`${name} ${args[0].value}\` runs a package it may download`);
    result.inner.push(...suffixes(args.slice(1)));
  } else if (name === 'env' || name === 'command' || name === 'builtin' || name === 'nice' || name === 'timeout' || name in TRANSPARENT) {
    // A wrapper that could not be peeled has already said why (or has nothing to run).
  } else {
    const inline = inlineCodeFlag(name, values);
    if (inline !== null) ask(`\`${name} ${inline}\` runs inline code`);
    else if (INTERPRETER.test(name) && values.every((a) => a.startsWith('-')) && !values.some((a) => INFO_FLAGS.has(a) || NOT_FROM_INPUT[name]?.test(a) === true)) {
      ask(`\`${name}\` without a script runs code read from its input`);
    }
  }

  const escalation = escalationOf(name, args);
  if (escalation !== null) result.escalation = escalation;
  return result;
}

/** Every suffix that starts at a word that is not an option: the commands a wrapper may run. */
function suffixes(args: readonly ArgWord[]): ArgWord[][] {
  const out: ArgWord[][] = [];
  for (let i = 0; i < args.length && out.length < 12; i++) {
    const v = args[i]!.value;
    if (v.startsWith('-') || v.startsWith('+') || v === '') continue;
    out.push(args.slice(i));
  }
  return out;
}

function operandsAfterOptions(values: readonly string[]): string[] {
  let i = 0;
  while (i < values.length && values[i]!.startsWith('-')) i++;
  return values.slice(i);
}

/**
 * Peels one wrapper off `words`; returns the wrapped command, or null when `words[0]` is
 * not a wrapper that can be peeled (then it is the command itself).
 */
function peel(words: readonly ArgWord[], result: CommandInspection): readonly ArgWord[] | null {
  const index = peelIndex(words, result);
  if (index === null) return null;
  return typeof index === 'number' ? words.slice(index) : index;
}

function peelIndex(argv: readonly ArgWord[], result: CommandInspection): number | readonly ArgWord[] | null {
  const at = 0;
  const word = argv[at]!;
  if (word.dynamic) return null;
  const name = baseName(word.value);
  const ask = (why: string) => result.reasons.push(`\`${name}\`: ${why}, so what it runs cannot be checked`);
  if (name === 'env') return peelEnv(argv, at, result);
  if (name === 'git') return peelGit(argv, at, result);
  if (name === 'flock') return peelFlock(argv, at, result);
  if (name === 'exec') result.reasons.push('`exec` replaces the shell with another command');
  const wrapper = TRANSPARENT[name];
  if (wrapper === undefined) return null;
  if (name === 'command') {
    // `command -v NAME` / `-V` only describes NAME.
    for (const w of argv.slice(at + 1)) {
      if (!w.value.startsWith('-') || w.value === '--') break;
      if (/^-[A-Za-z]*[vV]/.test(w.value)) return null;
    }
  }
  const options = readOptions(argv, at + 1, wrapper.options, ask);
  if (options === null) return null;
  if (options.seen.some(([o]) => wrapper.noCommand?.includes(o))) return null;
  if (name === 'time' && options.seen.some(([o]) => o === '-o' || o === '--output')) return null;
  let next = options.next;
  for (let k = 0; k < (wrapper.leading ?? 0); k++) {
    if (argv[next]?.dynamic) {
      ask('a computed operand');
      return null;
    }
    next++;
  }
  if (next >= argv.length) return null;
  return next;
}

function peelEnv(argv: readonly ArgWord[], at: number, result: CommandInspection): number | null {
  const ask = (why: string) => result.reasons.push(`\`env\`: ${why}, so what it runs cannot be checked`);
  const options = readOptions(argv, at + 1, {
    flags: 'i0v', values: 'uSCa',
    long: ['ignore-environment', 'null', 'debug', 'list-signal-handling'],
    longValues: ['unset', 'split-string', 'chdir', 'argv0', 'default-signal', 'ignore-signal', 'block-signal'],
  }, ask);
  if (options === null) return null;
  for (const [option, value] of options.seen) {
    if (option === '-S' || option === '--split-string') {
      result.reasons.push('`env -S` splits a string into a command');
      if (value !== null) result.scripts.push(value);
      return null;
    }
    if (option === '-a' || option === '--argv0') result.reasons.push('`env -a` runs a program under another name');
  }
  let i = options.next;
  // `env -- X=1 cmd` is fine too: after `--`, assignments may still follow.
  for (; i < argv.length; i++) {
    const word = argv[i]!;
    const match = ASSIGNMENT.exec(word.value);
    if (word.dynamic && !match) {
      ask('a computed word');
      return null;
    }
    if (!match || match[3] === undefined || match[2] !== undefined) {
      if (match?.[2] !== undefined) ask('an unusual assignment');
      break;
    }
    const reason = prefixAssignmentReason(match[1]!, word.dynamic || match[3] !== '=' ? null : word.value.slice(match[0].length));
    if (reason !== null) result.reasons.push(reason);
  }
  return i >= argv.length ? null : i;
}

const GIT_SAFE_GLOBALS = new Set(['--no-pager', '-P', '--no-replace-objects', '--literal-pathspecs', '--glob-pathspecs', '--noglob-pathspecs', '--icase-pathspecs', '--no-optional-locks', '--no-advice']);
const GIT_RISKY_GLOBALS = ['-c', '--config-env', '--exec-path', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '-p', '--paginate', '--bare', '--attr-source', '--list-cmds'];

/**
 * `git [global options] SUBCOMMAND …`: the global options are skipped so rules match
 * `git SUBCOMMAND …`. Options that run programs or point git at other configuration
 * always ask.
 */
function peelGit(argv: readonly ArgWord[], at: number, result: CommandInspection): readonly ArgWord[] | null {
  let i = at + 1;
  while (i < argv.length) {
    const word = argv[i]!;
    if (word.dynamic) {
      result.reasons.push(`\`git\`: a computed word (\`${word.value}\`) where options may be`);
      return null;
    }
    const v = word.value;
    if (!v.startsWith('-')) break;
    if (v === '-C') {
      i += 2;
      continue;
    }
    if (GIT_SAFE_GLOBALS.has(v)) {
      i++;
      continue;
    }
    const risky = GIT_RISKY_GLOBALS.find((o) => v === o || v.startsWith(`${o}=`) || (o.length === 2 && v.startsWith(o)));
    if (risky !== undefined) {
      result.reasons.push(`\`git ${risky}\` can make git run other programs or read other configuration`);
      i += (risky === '-c' || risky === '--config-env' || risky === '--git-dir' || risky === '--work-tree' || risky === '--namespace' || risky === '--exec-path' || risky === '--super-prefix' || risky === '--attr-source') && !v.includes('=') && v.length === risky.length ? 2 : 1;
      continue;
    }
    if (v === '--version' || v === '--help' || v === '-h' || v === '-v') return null;
    result.reasons.push(`\`git ${v}\` is not a known global option`);
    return null;
  }
  if (i === at + 1 || i >= argv.length) return null;
  // Keep `git` in front of the subcommand: rules say `git push`, not `push`.
  return [argv[at]!, ...argv.slice(i)];
}

function peelFlock(argv: readonly ArgWord[], at: number, result: CommandInspection): number | null {
  const ask = (why: string) => result.reasons.push(`\`flock\`: ${why}, so what it runs cannot be checked`);
  const spec: OptionSpec = {
    flags: 'sxenuoFv', values: 'wEc',
    long: ['shared', 'exclusive', 'nonblock', 'nb', 'unlock', 'close', 'no-fork', 'verbose'],
    longValues: ['timeout', 'wait', 'conflict-exit-code', 'command'],
  };
  const options = readOptions(argv, at + 1, spec, ask);
  if (options === null) return null;
  if (options.seen.some(([o]) => o === '-c' || o === '--command')) return null;
  const lock = options.next;
  if (lock >= argv.length) return null;
  let next = lock + 1;
  const after = argv[next];
  if (after !== undefined && !after.dynamic && (after.value === '-c' || after.value === '--command' || after.value.startsWith('--command='))) return null;
  if (after !== undefined && !after.dynamic && after.value.startsWith('-')) {
    // Options may also follow the lock file.
    const more = readOptions(argv, next, spec, ask);
    if (more === null || more.seen.some(([o]) => o === '-c' || o === '--command')) return null;
    next = more.next;
  }
  if (argv[lock]!.dynamic) {
    ask('a computed lock file');
    return null;
  }
  if (!/^\d+$/.test(argv[lock]!.value)) result.reasons.push('`flock FILE` creates its lock file');
  return next >= argv.length ? null : next;
}

// ---------------------------------------------------------------------------------------
// Builtins that make bash evaluate data, or change how it runs what follows.

const SHELL_BUILTINS = new Set([
  'eval', 'source', '.', 'trap', 'let', 'declare', 'typeset', 'local', 'export', 'readonly', 'printf', 'read', 'mapfile',
  'readarray', 'unset', 'wait', 'getopts', 'test', '[', 'set', 'shopt', 'alias', 'unalias', 'enable', 'hash', 'fc', 'compgen',
  'complete', 'compopt', 'bind', 'history', 'ulimit', 'umask', 'exec', 'coproc', 'caller', 'disown', 'suspend', 'logout', 'jobs',
]);
const TEST_UNARY = /^-[abcdefghkprstuwxGLNOSozn]$/;
const TEST_BINARY = new Set(['=', '==', '!=', '<', '>', '-eq', '-ne', '-lt', '-le', '-gt', '-ge', '-nt', '-ot', '-ef']);
const SET_OPTIONS = new Set(['errexit', 'nounset', 'pipefail', 'xtrace', 'verbose', 'noclobber']);

function inspectBuiltin(name: string, args: readonly ArgWord[], result: CommandInspection): void {
  const ask = (reason: string) => result.reasons.push(reason);
  const values = args.map((a) => a.value);
  const anyDynamic = args.some((a) => a.dynamic);
  const variableName = (word: ArgWord | undefined, exported = false): void => {
    if (word === undefined) return;
    if (word.dynamic || !IDENTIFIER.test(word.value)) {
      ask(`\`${name}\` names a variable (\`${word.value}\`) that bash evaluates (a subscript or a computed name)`);
      return;
    }
    const reason = shellAssignmentReason(word.value, exported);
    if (reason !== null) ask(reason);
  };
  switch (name) {
    case 'eval':
      ask('`eval` runs a string as shell code');
      if (values.length > 0) result.scripts.push(values.join(' '));
      return;
    case 'source':
    case '.':
      ask(`\`${name}\` runs a script inside the shell`);
      return;
    case 'trap':
      ask('`trap` runs a string as shell code later');
      if (values[0] !== undefined && !values[0].startsWith('-')) result.scripts.push(values[0]);
      return;
    case 'let':
      ask('`let` evaluates arithmetic, which can run commands');
      return;
    case 'declare':
    case 'typeset':
    case 'local':
    case 'export':
    case 'readonly': {
      let i = 0;
      if (values.length >= 1 && ['-p', '-f', '-F'].includes(values[0]!) && args.slice(1).every((w) => !w.dynamic && IDENTIFIER.test(w.value))) return;
      for (; i < args.length; i++) {
        const a = args[i]!;
        if (a.dynamic) {
          ask(`\`${name}\` with a computed argument (\`${a.value}\`)`);
          return;
        }
        if (a.value === '--') continue;
        if (a.value.startsWith('-') || a.value.startsWith('+')) {
          ask(`\`${name} ${a.value}\` sets attributes (integer, reference, array, …) that make bash evaluate values`);
          return;
        }
        const m = ASSIGNMENT.exec(a.value);
        if (m === null || (m[0] !== a.value && m[3] === undefined)) {
          ask(`\`${name}\` names a variable (\`${a.value}\`) that is not a plain name`);
          return;
        }
        if (m[2] !== undefined) {
          ask(`\`${name}\` assigns to an array element, whose subscript is evaluated`);
          return;
        }
        if (a.value.charAt(m[0].length) === '(') {
          ask(`\`${name}\` assigns an array, whose subscripts may be evaluated`);
          return;
        }
        const reason = shellAssignmentReason(m[1]!, name === 'export');
        if (reason !== null) ask(reason);
      }
      return;
    }
    case 'printf':
      if (anyDynamic && args[0]?.dynamic) ask('`printf` with a computed first argument (it could be `-v`)');
      if (values[0] !== undefined && values[0].startsWith('-v')) ask('`printf -v` assigns to a variable named by data, whose subscript is evaluated');
      return;
    case 'read': {
      const options = readOptions(args, 0, { flags: 'ers', values: 'adinNptu' }, (why) => ask(`\`read\`: ${why}`));
      if (options === null) return;
      if (options.seen.some(([o]) => o === '-a')) variableName({ value: options.seen.find(([o]) => o === '-a')![1] ?? '', dynamic: false });
      for (const a of args.slice(options.next)) variableName(a);
      return;
    }
    case 'mapfile':
    case 'readarray': {
      const options = readOptions(args, 0, { flags: 't', values: 'dnOsuCc' }, (why) => ask(`\`${name}\`: ${why}`));
      if (options === null) return;
      if (options.seen.some(([o]) => o === '-C' || o === '-O')) ask(`\`${name} -C\` runs a callback (and -O evaluates arithmetic)`);
      for (const a of args.slice(options.next)) variableName(a);
      return;
    }
    case 'unset':
      for (const a of args) {
        if (!a.dynamic && /^-[fvn]+$/.test(a.value)) continue;
        variableName(a);
      }
      return;
    case 'wait':
      if (anyDynamic || values.some((v) => /^-[A-Za-z]*p/.test(v))) ask('`wait -p` assigns to a variable named by data');
      return;
    case 'getopts':
      variableName(args[1]);
      return;
    case 'test':
    case '[':
      inspectTest(name === '[' && values.at(-1) === ']' ? args.slice(0, -1) : args, name, ask);
      return;
    case 'set':
      inspectSet(args, ask);
      return;
    case 'shopt':
      ask('`shopt` changes how bash parses and runs commands');
      return;
    case 'alias':
      if (anyDynamic || values.some((a) => a.includes('='))) ask('defines a shell alias');
      return;
    case 'hash':
      if (anyDynamic || values.some((a) => /^-[A-Za-z]*p/.test(a))) ask('`hash -p` changes which program a name runs');
      return;
    case 'enable':
      ask("`enable` changes the shell's builtin commands");
      return;
    case 'fc':
    case 'compgen':
    case 'complete':
    case 'compopt':
    case 'bind':
      ask(`\`${name}\` can run commands or functions`);
      return;
    case 'jobs':
      if (anyDynamic || values.some((v) => /^-[A-Za-z]*x/.test(v))) {
        ask('`jobs -x` runs a command');
        const x = values.findIndex((v) => /^-[A-Za-z]*x/.test(v));
        if (x >= 0) result.inner.push(...suffixes(args.slice(x + 1)));
      }
      return;
    case 'history':
      if (values.length > 0) ask('`history` with arguments reads or writes the history file');
      return;
    default:
      return;
  }
}

function inspectTest(args: readonly ArgWord[], name: string, ask: (reason: string) => void): void {
  const literal = (a: ArgWord | undefined) => a !== undefined && !a.dynamic;
  for (const a of args) {
    if (!a.dynamic && (a.value === '-v' || a.value === '-R')) {
      ask(`\`${name} ${a.value}\` evaluates a variable name, whose subscript can run commands`);
      return;
    }
  }
  if (!args.some((a) => a.dynamic)) return;
  // A computed word could itself be `-v`: only forms where it cannot be an operator pass.
  const [a, b, c] = args;
  const safe =
    args.length === 1 ||
    (args.length === 2 && literal(a) && (a!.value === '!' || TEST_UNARY.test(a!.value))) ||
    (args.length === 3 && literal(b) && TEST_BINARY.has(b!.value) && (c?.value !== undefined));
  if (!safe) ask(`\`${name}\` with computed operands in a form where one could be \`-v\``);
}

function inspectSet(args: readonly ArgWord[], ask: (reason: string) => void): void {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a.dynamic) {
      ask('`set` with a computed argument');
      return;
    }
    const v = a.value;
    if (v === '--' || v === '-') return;
    if (!v.startsWith('-') && !v.startsWith('+')) return;
    if (/^[-+]o$/.test(v) || /^[-+][euxv]*o$/.test(v)) {
      const option = args[i + 1]?.value;
      if (option === undefined || !SET_OPTIONS.has(option) || args[i + 1]!.dynamic) {
        ask(`\`set ${v} ${option ?? ''}\` changes how bash runs commands`);
        return;
      }
      i++;
      continue;
    }
    if (!/^[-+][euxvC]+$/.test(v)) {
      ask(`\`set ${v}\` changes how bash runs commands`);
      return;
    }
  }
}

function inspectShell(args: string[], name: string, result: CommandInspection): void {
  if (args.length > 0 && args.every((a) => SAFE_INFO_FLAGS.has(a))) return;
  let i = 0;
  let command = false;
  for (; i < args.length; i++) {
    const word = args[i]!;
    if (word === '--' || word === '-') {
      i++;
      break;
    }
    if (word === '-o' || word === '+o' || word === '-O' || word === '+O' || word === '--rcfile' || word === '--init-file') {
      i++;
      continue;
    }
    if (word === '--command' || word.startsWith('--command=')) {
      command = true;
      if (word.startsWith('--command=')) result.scripts.push(word.slice('--command='.length));
      continue;
    }
    if (/^[-+][A-Za-z]+$/.test(word)) {
      if (word.startsWith('-') && word.includes('c')) command = true;
      continue;
    }
    if (word.startsWith('--')) continue;
    break;
  }
  if (command) {
    result.reasons.push(`\`${name} -c\` runs a string as shell code`);
    const script = args[i];
    if (script !== undefined) result.scripts.push(script);
  } else if (i >= args.length) {
    result.reasons.push(`\`${name}\` without a script runs commands read from its input`);
  } else {
    result.reasons.push(`\`${name}\` runs a shell script`);
  }
}

function inspectFind(args: readonly ArgWord[], result: CommandInspection): void {
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!.value;
    if (word === '-exec' || word === '-execdir' || word === '-ok' || word === '-okdir') {
      result.reasons.push(`\`find ${word}\` runs a command for each file`);
      let end = i + 1;
      while (end < args.length && args[end]!.value !== ';' && args[end]!.value !== '+') end++;
      const inner = args.slice(i + 1, end);
      if (inner.length > 0) result.inner.push(inner);
      i = end;
    } else if (word === '-delete') {
      result.reasons.push('`find -delete` deletes files');
    }
  }
}

/** The flag that makes an interpreter run code given on the command line, or null. */
function inlineCodeFlag(name: string, args: string[]): string | null {
  const options: string[] = [];
  for (const word of args) {
    if (!word.startsWith('-') || word === '-' || word === '--') break;
    options.push(word);
  }
  const find = (test: (o: string) => boolean) => options.find(test) ?? null;
  if (/^(python[\d.]*|pypy[\d.]*)$/.test(name)) return find((o) => /^-[A-Za-z]*c/.test(o));
  if (name === 'node' || name === 'nodejs' || name === 'bun') {
    return find((o) => /^-[A-Za-z]*[epr]$/.test(o) || /^--(eval|print|require|import|loader|experimental-loader)(=|$)/.test(o));
  }
  if (name === 'deno') return args[0] === 'eval' ? 'eval' : null;
  if (name === 'perl') return find((o) => /^-[A-Za-z]*[eEM]/.test(o));
  if (name === 'ruby' || name === 'lua' || name === 'luajit' || name === 'Rscript' || name === 'osascript' || name === 'julia') {
    return find((o) => /^-[A-Za-z]*[eE]$/.test(o) || /^-[A-Za-z]*r/.test(o));
  }
  if (name === 'php') return find((o) => o === '-r' || o === '-B' || o === '-R' || o === '-E');
  return null;
}
