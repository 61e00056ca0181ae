// Which forms of a program write files or run other programs (issue 9 §1): an "Always
// allow" rule for a command covers it only in forms with none of these; the suggester
// offers rules only for such forms. One declarative entry per known program.
//
// Semantics of an entry:
// - `danger`: options that write or execute. GNU-style abbreviations count (`--out` is
//   `--output`), and a cluster of short options (`-nro`) counts when any letter in it is
//   one (letters after one that takes a value are its value; a stray letter is at worst a
//   needless question).
// - `strict`: the listed options are all the entry knows; any other option writes or
//   executes as far as we know (fail closed). Without `strict`, the entry states that the
//   program's other options only read and print (checked against its manual).
// - `maxOperands`: more operands than this write (`uniq IN OUT`).
// - `always`: every use writes or executes (pagers and editors run commands; archivers
//   create files).
// - a computed word (expansion, glob) could be any option, so it escalates unless the
//   entry has no dangerous option at all (`inert`).
// A program without an entry is the person's to judge: their rule covers it with any
// arguments its pattern matches (`npm test`, `make`, `mkdir`), and the suggester offers it
// only as they wrote it. Commands that always ask (shells, eval, wrappers, …) are in
// shell-commands.ts, not here.
import type { ArgWord } from './arg-word';

interface EffectSpec {
  flags?: string;
  values?: string;
  long?: string[];
  longValues?: string[];
  danger?: string[];
  strict?: boolean;
  maxOperands?: number;
  /** A computed word is fine: no option of the program matters. */
  dynamicOk?: boolean;
  always?: string;
  /** Extra checks on the operands and the options seen. */
  check?: (scan: Scan, args: readonly ArgWord[]) => string | null;
}

interface Scan {
  options: [string, string | null][];
  operands: string[];
}

const INERT: EffectSpec = { dynamicOk: true };
const PAGER = 'is a pager or an editor, which can run commands';

const SPECS: Record<string, EffectSpec> = {
  echo: INERT, cat: INERT, ls: INERT, pwd: INERT, true: INERT, false: INERT, ':': INERT, head: INERT, tail: INERT, wc: INERT,
  grep: INERT, egrep: INERT, fgrep: INERT, basename: INERT, dirname: INERT, realpath: INERT, readlink: INERT, whoami: INERT,
  id: INERT, uname: INERT, nl: INERT, cut: INERT, tr: INERT, cmp: INERT, diff: INERT, stat: INERT, du: INERT, df: INERT,
  which: INERT, type: INERT, column: INERT, fold: INERT, fmt: INERT, paste: INERT, rev: INERT, seq: INERT, expand: INERT,
  unexpand: INERT, comm: INERT, join: INERT, od: INERT, hexdump: INERT, md5sum: INERT, sha1sum: INERT, sha256sum: INERT,
  sha512sum: INERT, b2sum: INERT, cksum: INERT, jq: INERT, yes: INERT, tac: INERT, printenv: INERT, nproc: INERT,
  sleep: INERT, test: INERT, '[': INERT, '[[': INERT, printf: INERT, read: INERT, cd: INERT, locale: INERT, groups: INERT,
  tty: INERT, arch: INERT, uptime: INERT, free: INERT, zcat: INERT, bzcat: INERT, xzcat: INERT, zstdcat: INERT, shift: INERT,
  exit: INERT, return: INERT, break: INERT, continue: INERT, wait: INERT, getopts: INERT, unset: INERT, export: INERT,
  declare: INERT, typeset: INERT, local: INERT, readonly: INERT, set: INERT, mapfile: INERT, readarray: INERT,
  file: { danger: ['-C', '--compile'], values: 'mfFeP', longValues: ['magic-file', 'files-from', 'separator', 'exclude', 'parameter'] },
  tree: { danger: ['-o', '-R', '--output'], values: 'LPIo', longValues: ['filelimit', 'timefmt', 'charset', 'fromfile', 'output', 'sort', 'hintro', 'houtro', 'gitfile', 'infofile'] },
  uniq: { values: 'fsw', longValues: ['skip-fields', 'skip-chars', 'check-chars', 'group', 'all-repeated'], maxOperands: 1 },
  xxd: { values: 'cgloOsn', maxOperands: 1 },
  tee: { always: 'writes its operands (files)', check: () => null },
  sort: { values: 'kotST', longValues: ['key', 'output', 'field-separator', 'buffer-size', 'temporary-directory', 'compress-program', 'files0-from', 'random-source', 'sort', 'parallel', 'batch-size'], danger: ['-o', '--output', '--compress-program'] },
  rg: {
    values: 'eEfgjmMABCtTrd',
    danger: ['--pre', '--pre-glob', '--hostname-bin'],
    longValues: ['pre', 'pre-glob', 'hostname-bin', 'regexp', 'file', 'glob', 'iglob', 'type', 'type-not', 'replace', 'max-count', 'max-columns', 'context', 'after-context', 'before-context', 'threads', 'encoding', 'max-depth', 'ignore-file', 'sort', 'sortr', 'colors', 'color', 'type-add', 'type-clear', 'path-separator', 'field-match-separator', 'field-context-separator', 'context-separator', 'max-filesize', 'dfa-size-limit', 'regex-size-limit', 'engine', 'hyperlink-format', 'generate'],
  },
  sed: {
    strict: true,
    flags: 'nErsuz',
    values: 'efl',
    long: ['quiet', 'silent', 'null-data', 'zero-terminated', 'regexp-extended', 'separate', 'sandbox', 'unbuffered', 'posix', 'debug', 'follow-symlinks', 'help', 'version', 'in-place'],
    longValues: ['expression', 'file', 'line-length'],
    danger: ['-i', '--in-place', '-f', '--file'],
    check: (scan) => {
      const scripts = scan.options.filter(([o]) => o === '-e' || o === '--expression').map(([, v]) => v ?? '');
      if (scripts.length === 0) scripts.push(scan.operands[0] ?? '');
      for (const script of scripts) {
        const why = sedScriptEffect(script);
        if (why !== null) return why;
      }
      return null;
    },
  },
  find: {
    check: (_scan, args) => {
      const hit = args.find((a) => FIND_DANGER.has(a.value));
      return hit ? `\`find ${hit.value}\` writes files or runs commands` : null;
    },
  },
  awk: { check: (_s, args) => awkEffect(args) },
  gawk: { check: (_s, args) => awkEffect(args) },
  mawk: { check: (_s, args) => awkEffect(args) },
  nawk: { check: (_s, args) => awkEffect(args) },
  tar: { check: (_s, args) => tarEffect(args) },
  git: { check: (_s, args) => gitEffect(args) },
  curl: {
    values: 'HdXuAebxmEFhrwyYzCPQtTUo',
    danger: ['-o', '-O', '-K', '-D', '-c', '--output', '--remote-name', '--remote-name-all', '--config', '--dump-header', '--cookie-jar', '--trace', '--trace-ascii', '--libcurl', '--stderr', '--output-dir', '--create-dirs', '--etag-save', '--hsts', '--alt-svc'],
    longValues: ['output', 'config', 'dump-header', 'cookie-jar', 'trace', 'trace-ascii', 'libcurl', 'stderr', 'output-dir', 'etag-save', 'hsts', 'alt-svc', 'write-out', 'header', 'data', 'request', 'user', 'user-agent', 'referer', 'cookie', 'proxy', 'max-time', 'form', 'url'],
    check: (scan) => (scan.options.some(([o, v]) => (o === '-w' || o === '--write-out') && (v ?? '').includes('output')) ? '`curl -w %output{…}` writes a file' : null),
  },
  date: {
    values: 'dfrI',
    longValues: ['date', 'file', 'reference', 'set', 'iso-8601', 'rfc-3339', 'resolution'],
    danger: ['-s', '--set'],
    check: (scan) => (scan.operands.some((o) => !o.startsWith('+')) ? '`date` with an operand sets the clock' : null),
  },
  hostname: {
    danger: ['-F', '-b', '--file', '--boot'],
    check: (scan) => (scan.operands.length > 0 ? '`hostname NAME` sets the host name' : null),
  },
  dd: { check: (scan) => (scan.operands.some((o) => o.startsWith('of=')) ? '`dd of=…` writes a file' : null) },
  gzip: { check: (scan) => compressorEffect(scan) },
  gunzip: { check: (scan) => compressorEffect(scan) },
  bzip2: { check: (scan) => compressorEffect(scan) },
  xz: { check: (scan) => compressorEffect(scan) },
  zstd: { check: (scan) => compressorEffect(scan) },
  unzip: { check: (scan) => (scan.options.some(([o]) => ['-l', '-v', '-t', '-Z', '-p', '-z'].includes(o)) ? null : '`unzip` extracts files') },
  npm: { dynamicOk: true, danger: ['--script-shell', '--node-options', '--userconfig', '--globalconfig', '--call', '--shell', '--prefix', '--cache'] },
  pnpm: { dynamicOk: true, danger: ['--script-shell', '--node-options', '--config', '--shell-emulator'] },
  yarn: { dynamicOk: true, danger: ['--script-shell', '--use-yarnrc', '--rc-filename'] },
  less: { always: PAGER }, more: { always: PAGER }, most: { always: PAGER }, man: { always: PAGER }, pager: { always: PAGER },
  vi: { always: PAGER }, vim: { always: PAGER }, nvim: { always: PAGER }, view: { always: PAGER }, nano: { always: PAGER },
  emacs: { always: PAGER }, ed: { always: PAGER }, ex: { always: PAGER }, pico: { always: PAGER }, micro: { always: PAGER },
  zip: { always: 'creates or changes archives (and `-TT` runs a command)' },
  rsync: { always: 'copies files (and `-e` runs a program)' },
  scp: { always: 'copies files over the network' },
  wget: { always: 'writes what it downloads' },
  split: { always: 'writes output files' },
  csplit: { always: 'writes output files' },
};

const FIND_DANGER = new Set(['-exec', '-execdir', '-ok', '-okdir', '-delete', '-fprint', '-fprint0', '-fprintf', '-fls']);

/** True when `program` has an entry (its safe forms are known). */
export function hasEffectTable(program: string): boolean {
  return Object.hasOwn(SPECS, program);
}

/**
 * Why this form of `program` (its words after the name) writes files or runs programs
 * beyond what an allow rule for it covers, or null when it does not (or has no entry).
 */
export function escalationOf(program: string, args: readonly ArgWord[]): string | null {
  if (!Object.hasOwn(SPECS, program)) return null;
  const spec = SPECS[program]!;
  if (spec.always !== undefined) return `\`${program}\` ${spec.always}`;
  if (!spec.dynamicOk) {
    const computed = args.find((a) => a.dynamic);
    if (computed !== undefined) return `\`${program}\` with a computed argument (\`${computed.value}\`), which could be an option that writes or runs programs`;
  }
  const scan = scanOptions(program, spec, args);
  if (typeof scan === 'string') return scan;
  if (spec.maxOperands !== undefined && scan.operands.length > spec.maxOperands) {
    return `\`${program}\` with ${scan.operands.length} operands writes to the last one`;
  }
  return spec.check?.(scan, args) ?? null;
}

function scanOptions(program: string, spec: EffectSpec, args: readonly ArgWord[]): Scan | string {
  const danger = new Set(spec.danger ?? []);
  const longs = [...(spec.long ?? []), ...(spec.longValues ?? [])];
  const options: [string, string | null][] = [];
  const operands: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if (v === '--') {
      operands.push(...args.slice(i + 1).map((a) => a.value));
      break;
    }
    if (!v.startsWith('-') || v === '-') {
      operands.push(v);
      continue;
    }
    if (v.startsWith('--')) {
      const eq = v.indexOf('=');
      const given = v.slice(2, eq < 0 ? undefined : eq);
      // An abbreviation of a dangerous option is dangerous.
      const hit = [...danger].find((d) => d.startsWith('--') && d.slice(2).startsWith(given) && given.length > 0);
      if (hit !== undefined) return `\`${program} ${hit}\` writes files or runs programs`;
      const known = longs.find((l) => l === given) ?? (longs.filter((l) => l.startsWith(given)).length === 1 ? longs.find((l) => l.startsWith(given)) : undefined);
      if (spec.strict && known === undefined) return `\`${program} --${given}\` is not an option known to be safe`;
      let value: string | null = eq >= 0 ? v.slice(eq + 1) : null;
      if (known !== undefined && eq < 0 && spec.longValues?.includes(known)) value = args[++i]?.value ?? null;
      options.push([`--${known ?? given}`, value]);
      continue;
    }
    for (let k = 1; k < v.length; k++) {
      const letter = v.charAt(k);
      if (danger.has(`-${letter}`)) return `\`${program} -${letter}\` writes files or runs programs`;
      if (spec.values?.includes(letter)) {
        const value = k + 1 < v.length ? v.slice(k + 1) : (args[++i]?.value ?? null);
        options.push([`-${letter}`, value]);
        break;
      }
      if (spec.strict && !spec.flags?.includes(letter)) return `\`${program} -${letter}\` is not an option known to be safe`;
      options.push([`-${letter}`, null]);
    }
  }
  return { options, operands };
}

/**
 * GNU sed scripts: `e` (run), `w`/`W` (write) and the `e`/`w` flags of `s` escalate; so
 * does anything this reader does not understand.
 */
export function sedScriptEffect(script: string): string | null {
  const bad = (what: string) => `the \`sed\` script ${what}`;
  let i = 0;
  const n = script.length;
  const skipBlanks = () => {
    while (i < n && /[ \t\n;]/.test(script.charAt(i))) i++;
  };
  const readDelimited = (delimiter: string): boolean => {
    while (i < n) {
      const c = script.charAt(i);
      if (c === '\\') i += 2;
      else if (c === delimiter) {
        i++;
        return true;
      } else i++;
    }
    return false;
  };
  const readAddress = (): boolean => {
    const c = script.charAt(i);
    if (/[0-9]/.test(c)) {
      while (i < n && /[0-9~]/.test(script.charAt(i))) i++;
    } else if (c === '$') i++;
    else if (c === '/') {
      i++;
      if (!readDelimited('/')) return false;
      while (/[IM]/.test(script.charAt(i))) i++;
    } else if (c === '\\') {
      const d = script.charAt(i + 1);
      i += 2;
      if (!readDelimited(d)) return false;
    }
    return true;
  };
  while (i < n) {
    skipBlanks();
    if (i >= n) break;
    if (!readAddress()) return bad('could not be read');
    if (script.charAt(i) === ',') {
      i++;
      if (script.charAt(i) === '+' || script.charAt(i) === '~') i++;
      if (!readAddress()) return bad('could not be read');
    }
    while (script.charAt(i) === ' ' || script.charAt(i) === '!') i++;
    const command = script.charAt(i++);
    if (command === '{' || command === '}') continue;
    if ('pPdDnNgGhHxlq=QzF'.includes(command)) {
      while (/[0-9 ]/.test(script.charAt(i))) i++;
      continue;
    }
    if (command === 's' || command === 'y') {
      const d = script.charAt(i++);
      if (d === '' || d === '\\' || d === '\n') return bad('could not be read');
      if (!readDelimited(d) || !readDelimited(d)) return bad('could not be read');
      if (command === 's') {
        const flags = /^[gpiImM0-9ew]*/.exec(script.slice(i))![0];
        if (/[ew]/.test(flags)) return bad('runs a command or writes a file (`s///e`, `s///w`)');
        i += flags.length;
      }
      continue;
    }
    if (command === ':' || command === 'b' || command === 't' || command === 'T' || command === 'r' || command === 'R' || command === 'a' || command === 'i' || command === 'c') {
      // To the end of the line (GNU one-liner forms): labels, file names to read, text.
      while (i < n && script.charAt(i) !== '\n' && !((command === 'b' || command === 't' || command === 'T') && script.charAt(i) === ';')) i++;
      continue;
    }
    if (command === 'e' || command === 'w' || command === 'W') return bad(`runs a command or writes a file (\`${command}\`)`);
    if (command === '#') {
      while (i < n && script.charAt(i) !== '\n') i++;
      continue;
    }
    return bad(`has a command (\`${command}\`) that is not known to be safe`);
  }
  return null;
}

function awkEffect(args: readonly ArgWord[]): string | null {
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (a.dynamic) return '`awk` with a computed argument';
    const v = a.value;
    if (v === '--') {
      i++;
      break;
    }
    if (v === '-F' || v === '-v') {
      i++;
      continue;
    }
    if (/^-[Fv]./.test(v)) continue;
    if (v.startsWith('-')) return `\`awk ${v}\` is not an option known to be safe (\`-f\` reads a program, extensions load code)`;
    break;
  }
  const program = args[i];
  if (program === undefined) return '`awk` without a program';
  if (/system|getline|[|>]|@|fflush|close|ENVIRON\s*\[\s*"?(AWKPATH|AWKLIBPATH)/.test(program.value)) {
    return 'the `awk` program can run commands or write files';
  }
  return null;
}

const TAR_LIST_FLAGS = 'tvzjJaZkmpSOwq';
const TAR_LIST_LONG = ['list', 'verbose', 'gzip', 'gunzip', 'bzip2', 'xz', 'zstd', 'lzip', 'lzma', 'auto-compress', 'wildcards', 'no-wildcards', 'anchored', 'no-anchored', 'numeric-owner', 'force-local', 'full-time', 'utc', 'quiet', 'ignore-case', 'show-transformed-names', 'totals'];
const TAR_LIST_LONG_VALUES = ['file', 'directory', 'exclude', 'exclude-from', 'files-from', 'blocking-factor', 'format', 'occurrence', 'transform', 'xform'];

/** `tar` is allowed to list (`-t`); creating, extracting and every program-running option escalate. */
function tarEffect(args: readonly ArgWord[]): string | null {
  if (args.some((a) => a.dynamic)) return '`tar` with a computed argument';
  const values = args.map((a) => a.value);
  const words = values[0] !== undefined && !values[0].startsWith('-') ? [`-${values[0]}`, ...values.slice(1)] : values;
  let listing = false;
  let forceLocal = false;
  const files: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const v = words[i]!;
    if (v === '--') break;
    if (v.startsWith('--')) {
      const eq = v.indexOf('=');
      const name = v.slice(2, eq < 0 ? undefined : eq);
      if (name === 'list') listing = true;
      if (name === 'force-local') forceLocal = true;
      if (TAR_LIST_LONG_VALUES.includes(name)) {
        const value = eq >= 0 ? v.slice(eq + 1) : words[++i] ?? '';
        if (name === 'file') files.push(value);
        continue;
      }
      if (!TAR_LIST_LONG.includes(name)) return `\`tar --${name}\` is not an option known to be safe`;
      continue;
    }
    if (!v.startsWith('-')) continue;
    for (let k = 1; k < v.length; k++) {
      const letter = v.charAt(k);
      if (letter === 't') listing = true;
      if ('fCbXTH'.includes(letter)) {
        const value = k + 1 < v.length ? v.slice(k + 1) : (words[++i] ?? '');
        if (letter === 'f') files.push(value);
        break;
      }
      if (!TAR_LIST_FLAGS.includes(letter)) return `\`tar -${letter}\` creates or extracts files or runs programs`;
    }
  }
  if (!listing) return '`tar` other than listing (`-t`) creates or extracts files';
  if (!forceLocal && files.some((f) => f.includes(':'))) return '`tar -f HOST:FILE` runs a remote shell';
  return null;
}

function compressorEffect(scan: Scan): string | null {
  const reading = scan.options.some(([o]) => ['-c', '--stdout', '--to-stdout', '-t', '--test', '-l', '--list'].includes(o));
  return reading ? null : 'compresses or decompresses files in place';
}

// git subcommands: read-only ones, with the options that write or run programs.
const GIT_DANGER_LONG = ['output', 'output-directory', 'ext-diff', 'textconv', 'open-files-in-pager', 'exec', 'upload-pack', 'receive-pack', 'filters', 'run', 'edit'];
const GIT_READERS = new Set([
  'diff', 'log', 'show', 'whatchanged', 'shortlog', 'blame', 'annotate', 'grep', 'describe', 'rev-parse', 'ls-files', 'ls-tree',
  'cat-file', 'rev-list', 'for-each-ref', 'name-rev', 'merge-base', 'show-ref', 'count-objects', 'show-branch', 'cherry',
  'range-diff', 'diff-tree', 'diff-files', 'diff-index', 'reflog', 'version',
]);
const GIT_STATUS_LONG = ['short', 'branch', 'porcelain', 'long', 'verbose', 'untracked-files', 'ignore-submodules', 'ignored', 'column', 'no-column', 'ahead-behind', 'no-ahead-behind', 'renames', 'no-renames', 'find-renames', 'show-stash', 'null', 'no-optional-locks'];
const GIT_BRANCH_LIST = ['-a', '-r', '-v', '-vv', '-l', '--list', '--all', '--remotes', '--verbose', '--show-current', '--contains', '--no-contains', '--merged', '--no-merged', '--sort', '--format', '--color', '--no-color', '--column', '--no-column', '--points-at', '--abbrev', '-i', '--ignore-case'];

function gitEffect(args: readonly ArgWord[]): string | null {
  const sub = args[0];
  if (sub === undefined) return null;
  const rest = args.slice(1);
  const name = sub.value;
  const computed = rest.find((a) => a.dynamic);
  const values = rest.map((a) => a.value);
  const options = values.filter((v) => v.startsWith('-'));
  if (name === 'status') {
    if (computed) return '`git status` with a computed argument';
    for (const o of options) {
      if (o === '--') break;
      if (/^-[sbvuz]+$/.test(o) || /^-u(no|normal|all)$/.test(o)) continue;
      const long = o.slice(2).split('=')[0]!;
      if (o.startsWith('--') && GIT_STATUS_LONG.includes(long)) continue;
      return `\`git status ${o}\` is not an option known to be safe`;
    }
    return null;
  }
  if (GIT_READERS.has(name)) {
    if (computed) return `\`git ${name}\` with a computed argument, which could be an option that writes or runs programs`;
    for (const o of options) {
      if (o === '--') break;
      if (o.startsWith('--')) {
        const given = o.slice(2).split('=')[0]!;
        const hit = GIT_DANGER_LONG.find((d) => d.startsWith(given) && given.length > 0);
        if (hit !== undefined && !given.startsWith('no-')) return `\`git ${name} --${hit}\` writes files or runs programs`;
      } else if (name === 'grep' && /^-[A-Za-z]*O/.test(o)) return '`git grep -O` runs a pager';
    }
    if (name === 'reflog' && values[0] !== undefined && ['expire', 'delete', 'exists'].includes(values[0])) return '`git reflog` other than showing changes the repository';
    return null;
  }
  if (name === 'branch' || name === 'tag') {
    if (computed) return `\`git ${name}\` with a computed argument`;
    const listing = values.some((v) => v === '-l' || v === '--list');
    for (const v of values) {
      if (v.startsWith('-')) {
        if (!GIT_BRANCH_LIST.includes(v.split('=')[0]!) && !(name === 'tag' && /^-n\d*$/.test(v))) return `\`git ${name} ${v}\` changes the repository`;
      } else if (!listing) return `\`git ${name} NAME\` creates a ${name}`;
    }
    return null;
  }
  if (name === 'remote') return values.length === 0 || (values.length === 1 && values[0] === '-v') || values[0] === 'show' || values[0] === 'get-url' ? null : '`git remote` other than showing changes the repository';
  if (name === 'stash') return values[0] === 'list' || values[0] === 'show' ? null : '`git stash` other than list/show changes the working tree';
  if (name === 'worktree') return values[0] === 'list' ? null : '`git worktree` other than list changes the repository';
  if (name === 'config') {
    if (computed) return '`git config` with a computed argument';
    const reading = values.some((v) => ['--get', '--get-all', '--get-regexp', '--get-urlmatch', '--list', '-l', 'get', 'list'].includes(v));
    const writing = values.some((v) => /^(-e|--edit|--add|--unset|--unset-all|--replace-all|--rename-section|--remove-section|set|unset|edit|rename-section|remove-section)$/.test(v));
    return reading && !writing ? null : '`git config` other than reading changes configuration (which can run programs)';
  }
  return null;
}
