// A reproducible corpus of generated shell commands for the differential test: commands
// built from the constructs that turn data into code in bash (arithmetic, indirection,
// `-v`, subscripts, here-documents, wrappers, environment prefixes, …), spelled in every
// way bash decodes (quotes, escapes, `$'…'`, line continuations, control characters).
// Each case is a list of pieces whose concatenation is the command, so that a failing
// case can be shrunk by dropping pieces.

/** mulberry32: small, seeded, good enough to spread cases. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Case = string[];

class Gen {
  constructor(private readonly rand: () => number) {}

  int(n: number): number {
    return Math.floor(this.rand() * n);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  chance(p: number): boolean {
    return this.rand() < p;
  }

  /** One way bash would read back exactly `value` as one word (none is empty-safe unless quoted). */
  word(value: string, plainOnly = false): string {
    if (value === '') return this.pick(["''", '""', "$''"]);
    if (plainOnly || this.chance(0.45)) return plainWord(value) ?? `'${value.replaceAll("'", "'\\''")}'`;
    let out = '';
    let i = 0;
    while (i < value.length) {
      const len = 1 + this.int(3);
      const chunk = value.slice(i, i + len);
      i += len;
      out += this.chunk(chunk);
      if (this.chance(0.08)) out += this.pick(["''", '""']);
    }
    return out;
  }

  private chunk(chunk: string): string {
    switch (this.int(6)) {
      case 0:
        return [...chunk].map((c) => (c === '\n' ? "$'\\n'" : `\\${c}`)).join('');
      case 1:
        return chunk.includes("'") ? `"${escapeDouble(chunk)}"` : `'${chunk}'`;
      case 2:
        return `"${escapeDouble(chunk)}"`;
      case 3:
      case 4:
        return `$'${[...chunk].map((c) => this.ansi(c)).join('')}'`;
      default: {
        const plain = plainWord(chunk);
        if (plain !== null && this.chance(0.5) && !chunk.startsWith('~')) return this.chance(0.2) ? `${plain.slice(0, 1)}\\\n${plain.slice(1)}` : plain;
        return `'${chunk.replaceAll("'", "'\\''")}'`;
      }
    }
  }

  private ansi(c: string): string {
    const code = c.charCodeAt(0);
    if (code > 0x7f) return c;
    switch (this.int(6)) {
      case 0:
        return `\\x${code.toString(16).padStart(this.chance(0.5) ? 2 : 1, '0')}`;
      case 1:
        return `\\${code.toString(8).padStart(3, '0')}`;
      case 2:
        return `\\u${code.toString(16).padStart(4, '0')}`;
      case 3:
        return code >= 1 && code <= 26 ? `\\c${String.fromCharCode(96 + code)}` : `\\x${code.toString(16).padStart(2, '0')}`;
      default:
        if (c === "'" || c === '\\') return `\\${c}`;
        if (c === '\n') return '\\n';
        return c;
    }
  }

  words(values: readonly string[]): string {
    return values.map((v) => this.word(v)).join(this.blank());
  }

  blank(): string {
    return this.chance(0.9) ? ' ' : this.pick(['\t', '  ', ' \\\n ', '\x0b', '\r ', ' \xa0 ', '\f']);
  }

  separator(): string {
    return this.pick(['; ', ' && ', ' || ', ' | ', ' & ', '\n', '\r\n', ';\r\n', ' ;; ', ';', ' |& ']);
  }
}

function plainWord(value: string): string | null {
  return /^[A-Za-z0-9_./=+:,@%-]+$/.test(value) ? value : null;
}

function escapeDouble(value: string): string {
  return value.replace(/[$`"\\]/g, (c) => `\\${c}`);
}

const INERT_COMMANDS: string[][] = [
  ['git', 'status'], ['git', 'status', '--short'], ['git', 'diff'], ['git', '-C', '.', 'status'], ['git', '--no-pager', 'log'],
  ['echo', 'hi'], ['echo', '-e', 'a'], ['printf', '%s', 'x'], ['test', '-f', 'x'], ['ls', '-la'], ['cat', 'f'], ['true'],
  ['[', '-n', 'x', ']'], ['sort', 'f'], ['uniq', 'f'], ['rg', 'foo'], ['sed', '-n', '1p', 'f'], ['head', '-n', '1', 'f'],
  ['cd', '.'], ['pwd'], ['read', '-r', 'line'], [':'], ['wc', '-l'],
];
const PAYLOADS: string[][] = [['touch', 'M'], ['rm', '-f', 'M'], ['id'], ['git', 'push']];
const WRITING: string[][] = [
  ['uniq', 'a', 'b'], ['sort', '-o', 'out', 'f'], ['rg', '--pre', 'touch', 'x'], ['git', 'status', '--output=x'],
  ['sed', '-i', 's/a/b/', 'f'], ['git', '-c', 'core.pager=touch', 'log'], ['tee', 'out'],
];
const WRAPPERS: string[][] = [
  [], [], [], ['env'], ['env', '-i'], ['env', 'CI=1'], ['env', 'GIT_DIR=x'], ['env', '-u', 'X'], ['nice', '-n', '5'], ['timeout', '5'],
  ['nohup'], ['stdbuf', '-o0'], ['setsid'], ['flock', 'f'], ['command'], ['builtin'], ['time', '-p'], ['busybox'], ['chrt', '1'],
  ['taskset', '1'], ['ionice', '-c', '3'], ['xargs'], ['sudo'], ['strace'], ['exec'], ['nice'], ['timeout', '-s', 'KILL', '5'],
  ['jobs', '-x'], ['find', '.', '-exec'], ['env', '-C', '.'], ['nice', '-n5'], ['stdbuf', '-oL', '-eL'], ['ionice', '-t'],
];
const ARGUMENTS = [
  '$x', '"$HOME"', '${x:-y}', '${x:-$(touch M)}', '$((1+2))', '${#x}', '*.ts', '{a,b}', '~', '~/x', '"a b"', "'$(touch M)'",
  '\\$(touch M)', '$"x"', "$'a\\tb'", '-v', 'a[1]', '${x+z}', '"${x}"', '$1', '$@', '"$*"', '$$', '${!x}', '${x/a/b}', '${x:1}',
  '$[1]', '$(( x ))', "$'\\x24(touch M)'", '#c', 'a#b', '\\#', '"$(touch M)"', '`touch M`', '\\`id\\`',
  '"${a[@]}"', '${#a[*]}', '${a[0]}', '${a[x]}', '${#x}', '${!}', '${x[1]:-$HOME}', '"${@}"', '${10}', '$((0x1f))', '$(( 1 << 2 ))',
];
const REDIRECTS = ['', '', '', ' >/dev/null', ' 2>&1', ' > out', ' < f', ' 2>/dev/null', ' >>x', ' &>/dev/null', ' <<< "$(touch M)"', ' <<<x', ' >&2', ' >| f', ' 3>&-'];
const CARRIERS = [
  'echo $((x))', 'echo $[x]', '((x))', 'let x', 'echo ${a[x]}', 'echo ${HOME:x}', 'echo ${HOME:0:x}', '[[ x -eq 1 ]]', '[[ $x -eq 1 ]]',
  'declare -i y=x', 'test -v "$x"', '[ -v "$x" ]', '[[ -v $x ]]', 'printf -v "$x" y', 'read "$x" <<< 1', 'unset "$x"', 'echo ${!x}',
  'echo ${x@P}', 'getopts a "$x"', 'wait -p "$x"', 'export "$x=1"', 'declare -n r="$x"; echo $r', 'echo $(( $x ))',
  'for ((i=x; i<1; i++)); do :; done', 'a[x]=1', 'y=( [x]=1 )', 'echo "${x}"', 'echo $x', 'test "$x" -eq 1', 'echo ${x:-1}',
  'declare y=$x', 'local y', 'mapfile -C "$x" -c 1 a <<< 1', 'eval "$x"', 'echo ${x#a}', 'shift "$x"', '[ "$x" = 1 ]',
  '[[ $# -gt x ]]', '[[ $# -gt 0 ]] && echo $x', '[[ ${#x} -eq 1 ]]', 'a=($x); echo "${a[0]}"', 'a=(1 2); echo ${a[@]}',
  'read -r y <<< "$x"; echo $((y))', 'printf -v y %s "$x"; echo $((y))', 'test -n "$x"', '[ ! "$x" ]', 'test "$x"',
  '[ -n "$x" -a -v x ]', 'test "$x" "$x"', 'set -- "$x"; echo $(($1))', 'echo "$x" | read -r y',
];
const DATA = ['a[$(touch M)]', '$(touch M)', 'touch M', 'a[`touch M`]', '1', 'x[0]', 'HOME', 'a[$(id)]'];
const HEREDOC_DELIMITERS = [
  ['EOF', 'EOF'], ["'EOF'", 'EOF'], ['"EOF"', 'EOF'], ['\\EOF', 'EOF'], ['E"O"F', 'EOF'], ["$'E\\x4fF'", 'EOF'], ['EOF\r', 'EOF\r'],
  ['EOF', 'EOF\r'], ['EOF', ' EOF'], ['EOF', 'EOF '], ['E\\OF', 'EOF'], ['"E F"', 'E F'], ['$x', '$x'], ['EOF', '\tEOF'],
];
const HEREDOC_LINES = ['hello', '$(touch M)', '`id`', 'EOF\r', '\tEOF', 'E\\', 'OF', 'touch M', '$HOME', '${!x}', '$((x))', "'", '"', '\\', 'EO\\\nF'];

export function generateCorpus(seed: number, count: number): Case[] {
  const g = new Gen(prng(seed));
  const cases: Case[] = [];
  for (let n = 0; n < count; n++) {
    const pieces: string[] = [];
    const statements = 1 + g.int(3);
    for (let s = 0; s < statements; s++) {
      pieces.push(statement(g) + (s + 1 < statements ? g.separator() : g.pick(['', '', '\n', '\r', ' &', ';'])));
    }
    cases.push(pieces);
  }
  return cases;
}

function simple(g: Gen): string {
  const pool = g.pick([INERT_COMMANDS, INERT_COMMANDS, INERT_COMMANDS, PAYLOADS, WRITING]);
  const command = g.pick(pool);
  const prefix = g.chance(0.15) ? `${g.pick(['CI=1', 'x=1', 'GIT_DIR=x', 'X=1', 'PAGER=id', 'IFS=/', 'a[1]=2', 'LC_ALL=C'])} ` : '';
  const wrapper = g.pick(WRAPPERS);
  const words = [...wrapper, ...command].map((v) => g.word(v));
  const extra = g.chance(0.35) ? [g.pick(ARGUMENTS)] : [];
  return prefix + [...words, ...extra].join(g.blank()) + g.pick(REDIRECTS);
}

function statement(g: Gen): string {
  switch (g.int(10)) {
    case 0:
    case 1:
    case 2:
      return simple(g);
    case 3:
    case 4: {
      const data = g.pick(DATA);
      const wrapper = g.pick(['', '', '', 'command ', 'builtin ', 'time ', '\\command ', 'command -p ', '! ']);
      return `x=${g.word(data)}${g.pick(['; ', '\n', ' && '])}${wrapper}${g.pick(CARRIERS)}`;
    }
    case 5: {
      const [written, line] = g.pick(HEREDOC_DELIMITERS);
      const dash = g.chance(0.2) ? '-' : '';
      const body = Array.from({ length: g.int(3) }, () => g.pick(HEREDOC_LINES));
      const end = g.chance(0.8) ? line : g.pick(['EOF', 'EOF\r', '\tEOF']);
      return `${g.pick(['cat', 'read -r l', 'echo', 'git status'])} <<${dash}${written}${g.chance(0.2) ? ` ${g.pick(['; touch M', '&& id', '| cat', '$(id)'])}` : ''}\n${body.map((b) => `${b}\n`).join('')}${end}\n${g.chance(0.5) ? g.words(g.pick([...PAYLOADS, ...INERT_COMMANDS])) : ''}`;
    }
    case 6: {
      const inner = simple(g);
      return g.pick([
        `{ ${inner}; }`, `( ${inner} )`, `if true; then ${inner}; fi`, `! ${inner}`, `for i in 1; do ${inner}; done`,
        `while false; do ${inner}; done`, `echo "$(${inner})"`, `echo \`${inner}\``, `${inner} | cat`, `time ${inner}`,
        `case x in x) ${inner};; esac`, `[[ -n x ]] && ${inner}`, `coproc ${inner}`, `f() { ${inner}; }; f`,
        `eval ${g.word(inner)}`, `bash -c ${g.word(inner)}`, `trap ${g.word(inner)} EXIT`, `alias a=${g.word(inner)}`,
        `cat <(${inner})`, `echo $(( $(${inner}) ))`,
      ]);
    }
    case 7: {
      // A command name spelled by decoding.
      const command = g.pick([...PAYLOADS, ...INERT_COMMANDS]);
      return command.map((w) => g.word(w)).join(g.blank());
    }
    case 8: {
      // Control characters and odd blanks around words and operators.
      const command = g.pick(INERT_COMMANDS).map((w) => g.word(w, true));
      const odd = g.pick(['\r', '\x0b', '\f', '\xa0', '\x1b', '\t', '\x7f', '\x01', '\x02']);
      const at = g.int(command.length + 1);
      command.splice(at, 0, odd);
      return `${command.join(g.pick(['', ' ']))}${g.separator()}${g.words(g.pick(PAYLOADS))}`;
    }
    default:
      return `${g.words(g.pick(INERT_COMMANDS))}${g.pick(['', ' #', ' # ', '#'])}${g.pick(['', ' \\'])}${g.separator()}${g.words(g.pick(PAYLOADS))}`;
  }
}
