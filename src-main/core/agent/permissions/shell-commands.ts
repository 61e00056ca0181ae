// What a single simple command does, judged from its words (after quote removal):
// which wrappers it goes through, whether it runs code the rules cannot see, and which
// commands it runs in turn. Pure; shell-parse.ts does the parsing and the recursion.

export interface CommandInspection {
  /** The words rule patterns are matched against: transparent wrappers peeled off. */
  matchWords: string[];
  /** Human-readable reasons why this command must always ask. */
  reasons: string[];
  /** Shell source this command runs (e.g. the string of `sh -c`), to be analysed too. */
  scripts: string[];
  /** Commands this command runs (e.g. after `sudo`, `xargs`, `find -exec`), to be analysed too. */
  commands: string[][];
}

const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'fish', 'csh', 'tcsh', 'yash', 'posh']);
const POWERSHELLS = new Set(['pwsh', 'powershell', 'pwsh.exe', 'powershell.exe']);
const PRIVILEGE = new Set(['sudo', 'doas', 'pkexec', 'run0']);
const DECLARATIONS = new Set(['export', 'declare', 'typeset', 'local', 'readonly']);
const SAFE_INFO_FLAGS = new Set(['--version', '-V', '--help', '-h']);
const INFO_FLAGS = new Set([...SAFE_INFO_FLAGS, '-v', '-version', '--v8-options']);
const INTERPRETER = /^(python[\d.]*|pypy[\d.]*|node|nodejs|bun|deno|perl|ruby|php|lua|Rscript|julia|irb)$/;

// Setting these changes which program or code a command runs.
const DANGEROUS_VARIABLES = new Set([
  'PATH', 'BASH_ENV', 'ENV', 'SHELLOPTS', 'BASHOPTS', 'PS4', 'PROMPT_COMMAND', 'IFS', 'HOME', 'ZDOTDIR',
  'XDG_CONFIG_HOME', 'NODE_OPTIONS', 'NODE_PATH', 'PYTHONPATH', 'PYTHONSTARTUP', 'PYTHONHOME', 'PYTHONINSPECT',
  'PERL5OPT', 'PERL5LIB', 'PERLLIB', 'RUBYOPT', 'RUBYLIB', 'JAVA_TOOL_OPTIONS', '_JAVA_OPTIONS', 'JDK_JAVA_OPTIONS',
  'GIT_SSH', 'GIT_SSH_COMMAND', 'GIT_EXEC_PATH', 'GIT_PAGER', 'GIT_EDITOR', 'GIT_SEQUENCE_EDITOR', 'GIT_ASKPASS',
  'GIT_PROXY_COMMAND', 'GIT_EXTERNAL_DIFF', 'GIT_DIR', 'GIT_WORK_TREE', 'GIT_TEMPLATE_DIR', 'SSH_ASKPASS',
  'SUDO_ASKPASS', 'PAGER', 'MANPAGER', 'LESSOPEN', 'LESSCLOSE', 'EDITOR', 'VISUAL', 'BROWSER', 'RUSTC_WRAPPER',
  'CARGO_BUILD_RUSTC_WRAPPER', 'SHELL',
]);
const DANGEROUS_PREFIXES = ['LD_', 'DYLD_', 'GIT_CONFIG', 'BASH_FUNC_', 'npm_config_', 'NPM_CONFIG_'];

export function isDangerousVariable(name: string): boolean {
  return DANGEROUS_VARIABLES.has(name) || DANGEROUS_PREFIXES.some((p) => name.startsWith(p));
}

const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?\+?=/;

/** The variable name when `word` is an assignment such as `FOO=1`, else null. */
export function assignmentName(word: string): string | null {
  return ASSIGNMENT.exec(word)?.[1] ?? null;
}

export function dangerousAssignmentReason(name: string): string {
  return `sets ${name}, which can change what a command runs`;
}

export function baseCommandName(word: string): string {
  return word.slice(word.lastIndexOf('/') + 1);
}

/**
 * Peels wrappers that do not change what runs (`env`, `command`, `builtin`, `time`,
 * `nice`, `timeout`, `stdbuf`) so `timeout 60 npm test` matches the pattern `npm test`.
 * Stops at any option it does not know, so an unusual wrapper call still asks.
 */
function peelTransparent(words: string[], reasons: string[]): string[] {
  let rest = words;
  for (let guard = 0; guard < 32; guard++) {
    const name = rest[0];
    if (name === undefined) break;
    const args = rest.slice(1);
    let next: string[] | null = null;
    switch (name) {
      case 'env':
        next = peelEnv(args, reasons);
        break;
      case 'command':
      case 'builtin':
        next = args[0] === '--' ? args.slice(1) : args[0]?.startsWith('-') ? null : args;
        break;
      case 'time':
        next = args[0] === '-p' ? args.slice(1) : args;
        break;
      case 'nice':
        next = skipOptions(args, new Set(['-n']), /^(-n\d+|-\d+|--adjustment=.*)$/);
        break;
      case 'timeout': {
        const afterOptions = skipOptions(args, new Set(['-s', '-k', '--signal', '--kill-after']), /^(--foreground|--preserve-status|-v|--verbose|--signal=.*|--kill-after=.*|-s\w+|-k[\d.]+\w?)$/);
        next = afterOptions && afterOptions.length > 0 && /^[\d.]+[smhd]?$/.test(afterOptions[0]!) ? afterOptions.slice(1) : null;
        break;
      }
      case 'stdbuf':
        next = skipOptions(args, new Set(['-i', '-o', '-e']), /^(-[ioe].+|--(input|output|error)=.*)$/);
        break;
    }
    // A wrapper with nothing to run is itself the command (`env` alone prints the environment).
    if (next === null || next.length === 0) break;
    rest = next;
  }
  return rest;
}

function peelEnv(args: string[], reasons: string[]): string[] | null {
  let i = 0;
  for (; i < args.length; i++) {
    const word = args[i]!;
    if (word === '-i' || word === '-' || word === '--ignore-environment' || word === '-0' || word === '--null') continue;
    if (word === '-u' || word === '--unset') {
      i++;
      continue;
    }
    if (word.startsWith('--unset=') || /^-u./.test(word)) continue;
    if (word === '--') {
      i++;
      break;
    }
    if (word === '-S' || word.startsWith('--split-string') || /^-S./.test(word)) {
      reasons.push('`env -S` splits a string into a command');
      return null;
    }
    if (word.startsWith('-')) return null;
    const name = assignmentName(word);
    if (name === null) break;
    if (isDangerousVariable(name)) reasons.push(dangerousAssignmentReason(name));
  }
  for (; i < args.length; i++) {
    const name = assignmentName(args[i]!);
    if (name === null) break;
    if (isDangerousVariable(name)) reasons.push(dangerousAssignmentReason(name));
  }
  return args.slice(i);
}

/** Skips known options (those in `withValue` take the next word); null on an unknown option. */
function skipOptions(args: string[], withValue: Set<string>, standalone: RegExp): string[] | null {
  let i = 0;
  while (i < args.length) {
    const word = args[i]!;
    if (word === '--') return args.slice(i + 1);
    if (!word.startsWith('-') || word === '-') break;
    if (withValue.has(word)) i += 2;
    else if (standalone.test(word)) i += 1;
    else return null;
  }
  return args.slice(i);
}

/** Index of the first word that is not an option, honouring options that take a value. */
function firstOperand(args: string[], withValue: Set<string>): number {
  let i = 0;
  while (i < args.length) {
    const word = args[i]!;
    if (word === '--') return i + 1;
    if (!word.startsWith('-') || word === '-') return i;
    i += withValue.has(word) ? 2 : 1;
  }
  return i;
}

export function inspectCommand(words: string[]): CommandInspection {
  const reasons: string[] = [];
  const scripts: string[] = [];
  const commands: string[][] = [];
  const matchWords = peelTransparent(words, reasons);
  const first = matchWords[0];
  if (first === undefined) return { matchWords, reasons, scripts, commands };
  const name = baseCommandName(first);
  const args = matchWords.slice(1);

  if (SHELLS.has(name) || (name === 'busybox' && args[0] !== undefined && SHELLS.has(args[0]))) {
    inspectShell(name === 'busybox' ? args.slice(1) : args, name, reasons, scripts);
  } else if (POWERSHELLS.has(name)) {
    reasons.push(`\`${name}\` runs PowerShell code`);
  } else if (name === 'eval' || name === 'trap') {
    reasons.push(`\`${name}\` runs a string as shell code`);
    if (name === 'eval' && args.length > 0) scripts.push(args.join(' '));
    if (name === 'trap' && args[0] !== undefined && !args[0].startsWith('-')) scripts.push(args[0]);
  } else if (name === 'source' || name === '.') {
    reasons.push(`\`${name}\` runs a script inside the shell`);
  } else if (name === 'exec') {
    reasons.push('`exec` replaces the shell with another command');
    const rest = args.slice(firstOperand(args, new Set(['-a'])));
    if (rest.length > 0) commands.push(rest);
  } else if (PRIVILEGE.has(name)) {
    reasons.push(`\`${name}\` runs a command with elevated privileges`);
    const rest = args.slice(firstOperand(args, new Set(['-u', '-g', '-C', '-D', '-h', '-p', '-r', '-t', '-U', '-T', '-R'])));
    if (rest.length > 0) commands.push(rest);
  } else if (name === 'su' || name === 'runuser') {
    reasons.push(`\`${name}\` runs commands as another user`);
    const c = args.findIndex((a) => a === '-c' || a === '--command');
    const script = c >= 0 ? args[c + 1] : undefined;
    if (script !== undefined) scripts.push(script);
  } else if (name === 'xargs') {
    reasons.push('`xargs` runs commands built from its input');
    const rest = args.slice(firstOperand(args, new Set(['-I', '-L', '-l', '-n', '-P', '-s', '-d', '-E', '-e', '-a'])));
    if (rest.length > 0) commands.push(rest);
  } else if (name === 'find') {
    inspectFind(args, reasons, commands);
  } else if (name === 'nohup' || name === 'setsid') {
    if (args.length > 0) commands.push(args);
  } else if (name === 'watch') {
    reasons.push('`watch` runs its arguments as a shell command');
    const rest = args.slice(firstOperand(args, new Set(['-n', '-d', '-q', '--interval', '--differences'])));
    if (rest.length > 0) scripts.push(rest.join(' '));
  } else if (DECLARATIONS.has(name)) {
    for (const arg of args) {
      const variable = assignmentName(arg);
      if (variable !== null && isDangerousVariable(variable)) reasons.push(dangerousAssignmentReason(variable));
      if (variable !== null && /\$\(|`/.test(arg)) reasons.push(`stores shell code in ${variable}, which runs if the shell evaluates it`);
    }
  } else if (name === 'alias' && args.some((a) => a.includes('='))) {
    reasons.push('defines a shell alias');
  } else if (name === 'hash' && args.some((a) => /^-[A-Za-z]*p/.test(a))) {
    reasons.push('`hash -p` changes which program a name runs');
  } else if (name === 'enable') {
    reasons.push('`enable` changes the shell\'s builtin commands');
  } else if (name === 'git') {
    if (args.some((a) => a === '-c' || a.startsWith('--config-env') || a.startsWith('--exec-path='))) {
      reasons.push('`git -c` can set options that run other programs');
    }
  } else if (/^(gawk|mawk|nawk|awk)$/.test(name)) {
    inspectAwk(args, reasons);
  } else {
    const inline = inlineCodeFlag(name, args);
    if (inline !== null) reasons.push(`\`${name} ${inline}\` runs inline code`);
    else if (INTERPRETER.test(name) && args.every((a) => a.startsWith('-')) && !args.some((a) => INFO_FLAGS.has(a))) {
      reasons.push(`\`${name}\` without a script runs code read from its input`);
    }
  }
  return { matchWords, reasons, scripts, commands };
}

function inspectShell(args: string[], name: string, reasons: string[], scripts: string[]): void {
  let command = false;
  let stdin = false;
  let i = 0;
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
      if (word.startsWith('--command=')) scripts.push(word.slice('--command='.length));
      continue;
    }
    if (/^[-+][A-Za-z]+$/.test(word)) {
      if (word.startsWith('-') && word.includes('c')) command = true;
      if (word.startsWith('-') && word.includes('s')) stdin = true;
      continue;
    }
    if (word.startsWith('--')) continue;
    break;
  }
  if (command) {
    reasons.push(`\`${name} -c\` runs a string as shell code`);
    const script = args[i];
    if (script !== undefined) scripts.push(script);
  } else if (stdin || i >= args.length) {
    if (!args.some((a) => SAFE_INFO_FLAGS.has(a))) reasons.push(`\`${name}\` without a script runs commands read from its input`);
  }
}

function inspectFind(args: string[], reasons: string[], commands: string[][]): void {
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (word === '-exec' || word === '-execdir' || word === '-ok' || word === '-okdir') {
      reasons.push(`\`find ${word}\` runs a command for each file`);
      let end = i + 1;
      while (end < args.length && args[end] !== ';' && args[end] !== '+') end++;
      const inner = args.slice(i + 1, end);
      if (inner.length > 0) commands.push(inner);
      i = end;
    } else if (word === '-delete') {
      reasons.push('`find -delete` deletes files');
    } else if (word === '-fprint' || word === '-fprint0' || word === '-fprintf' || word === '-fls') {
      reasons.push(`\`find ${word}\` writes to a file`);
    }
  }
}

function inspectAwk(args: string[], reasons: string[]): void {
  const program = args[firstOperand(args, new Set(['-F', '-v', '-f', '-W']))];
  if (args.includes('-f') || program === undefined) return;
  // awk programs can run commands (system, pipes) and write files (print > "f").
  if (/\bsystem\s*\(|\||\bprintf?\b[^;{}]*>/.test(program)) reasons.push('the `awk` program can run commands or write files');
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
    return find((o) => /^-[A-Za-z]*[ep]$/.test(o) || /^--(eval|print)(=|$)/.test(o));
  }
  if (name === 'deno') return args[0] === 'eval' ? 'eval' : null;
  if (name === 'perl') return find((o) => /^-[A-Za-z]*[eE]/.test(o));
  if (name === 'ruby' || name === 'lua' || name === 'Rscript' || name === 'osascript' || name === 'julia') {
    return find((o) => /^-[A-Za-z]*[eE]$/.test(o));
  }
  if (name === 'php') return find((o) => o === '-r' || o === '-B' || o === '-R' || o === '-E');
  return null;
}
