// The shell analyser behind command permissions (SPEC §4, §7 "Shell rules"). It reads a
// bash command line the way bash does, splits it into simple commands (on `;`, `&`, `&&`,
// `||`, `|`, `|&` and newlines), decodes each word exactly as bash would (quotes, `\`
// escapes, `$'…'` with every escape, line continuations; `\r` and other control
// characters are word characters) and lists the reasons the command must ask whatever the
// rules say: anything it cannot prove inert.
//
// Fail closed. Each of these asks:
// - command and process substitution; arithmetic (`$((…))`, `$[…]`, `((…))`, `for ((`),
//   unless it is made of numbers and operators only (a name in arithmetic is evaluated
//   again as an expression, and `a[$(cmd)]` in it runs cmd);
// - parameter expansions other than `$x`, `${x}`, `${#x}`, `${x-w}`, `${x:-w}`, `${x+w}`,
//   `${x:+w}`, `${x?w}`, `${x:?w}` (indirection `${!x}`, subscripts, substrings, patterns,
//   transformations such as `${x@P}`, assignments `${x:=w}`);
// - `[[ … ]]` with arithmetic comparisons or `-v`/`-R`, and a `[[` that spans lines;
// - here-documents whose delimiter is not plain text, whose body it cannot delimit as
//   bash does (a line continuation in an expanded body, a missing delimiter, a
//   here-document inside a substitution, or one whose line continues past its operator);
// - redirections into files (`/dev/null`, `/dev/stdout`, `/dev/stderr`, `/dev/tty`,
//   `>&N`, `N>&-` are fine); a line continuation right after an operator or `$`;
// - NUL, and bash's internal quoting bytes \x01 and \x7f, anywhere; `$'…'` escapes that
//   do not decode to one known character (`\0`, a byte over 0x7f, `\c` at the end, …);
// - a command name that is computed (an expansion, a glob, brace or tilde expansion);
// - function definitions, `case`, `coproc`, `select`, and whatever shell-commands.ts
//   finds in the simple commands themselves (eval, wrappers, assignments, …).
//
// Each simple command is reported (`commands`) with its decoded words (`argv`), the words
// rules match (`words`: wrappers unwrapped) and whether allow rules may cover its form
// (`escalation`, see command-effects.ts). Commands nested in substitutions, `sh -c`
// strings and wrappers are reported too, marked `nested`, so that deny rules see them.
import { shellWord } from '../../text/shell-quote';
import type { ArgWord } from './arg-word';
import { inspectCommand, prefixAssignmentReason, shellAssignmentReason } from './shell-commands';

export interface ShellCommand {
  /** The simple command as written, trimmed. */
  text: string;
  /** Its words after quote removal (assignments and redirections left out), as bash passes them. */
  argv: string[];
  /** Per word of `argv`: its value is only known when it runs. */
  dynamicArgv: boolean[];
  /** What rule patterns are matched against: `argv` with wrappers (`env`, `timeout`, `git -C`, …) peeled off. */
  words: string[];
  /** Per word of `words`: its value is only known when it runs (an expansion, a glob, …). */
  dynamic: boolean[];
  /** True when it runs inside another command rather than at the top level. */
  nested: boolean;
  /** Set when this form writes files or runs programs beyond what an allow rule for the command covers. */
  escalation?: string;
}

export interface CommandAnalysis {
  /** The simple commands as written, in order (`commands[i].text`). */
  parts: string[];
  /** Human-readable reasons why this command must always ask; empty when rules may decide. */
  alwaysAsk: string[];
  commands: ShellCommand[];
}

export function analyzeCommand(command: string): CommandAnalysis {
  const sink: Sink = { commands: [], reasons: [] };
  if (['\0', '\x01', '\x7f'].some((c) => command.includes(c))) sink.reasons.push('contains a NUL or an internal control byte (\\x01, \\x7f) that bash treats specially');
  analyzeSource(command, sink, false, 0);
  const alwaysAsk = [...new Set(sink.reasons)];
  return { parts: sink.commands.map((c) => c.text), alwaysAsk, commands: sink.commands };
}

interface Sink {
  commands: ShellCommand[];
  reasons: string[];
}

const MAX_DEPTH = 8;
// Wrappers that ask report every command they may run; this bounds the work on hostile nesting.
const MAX_COMMANDS = 1000;

function analyzeSource(source: string, sink: Sink, nested: boolean, depth: number): void {
  if (depth > MAX_DEPTH) {
    sink.reasons.push('the command nests shells too deeply to be checked');
    return;
  }
  const parser = new Parser(source, 0, sink, nested, depth);
  parser.parseList(false);
  if (parser.pos < source.length) sink.reasons.push(`could not parse the command: unexpected \`${source.charAt(parser.pos)}\``);
}

function emitCommand(text: string, argv: ArgWord[], sink: Sink, nested: boolean, depth: number): void {
  if (depth > MAX_DEPTH) {
    sink.reasons.push('the command nests shells too deeply to be checked');
    return;
  }
  if (sink.commands.length >= MAX_COMMANDS) {
    sink.reasons.push('the command holds too many commands to be checked');
    return;
  }
  const inspection = inspectCommand(argv);
  const matched = inspection.matched;
  const command: ShellCommand = {
    text,
    argv: argv.map((w) => w.value),
    dynamicArgv: argv.map((w) => w.dynamic),
    words: matched.map((w) => w.value),
    dynamic: matched.map((w) => w.dynamic),
    nested,
  };
  if (inspection.escalation !== undefined) command.escalation = inspection.escalation;
  sink.commands.push(command);
  sink.reasons.push(...inspection.reasons);
  for (const script of inspection.scripts) analyzeSource(script, sink, true, depth + 1);
  for (const inner of inspection.inner) emitCommand(inner.map((w) => shellWord(w.value)).join(' '), inner, sink, true, depth + 1);
}

interface Word {
  raw: string;
  value: string;
  /** Its value is only known at run time: an expansion, an unquoted glob, brace or tilde. */
  dynamic: boolean;
  /** Contains a command or process substitution. */
  substituted: boolean;
  quoted: boolean;
}

function newWord(): Word {
  return { raw: '', value: '', dynamic: false, substituted: false, quoted: false };
}

interface Pending {
  delimiter: string;
  literal: boolean;
  stripTabs: boolean;
  /** Where the operator is: the body starts after the first newline after it. */
  at: number;
}

interface Building {
  start: number;
  end: number;
  words: Word[];
  /** `for`/`select` header: its words are not a command. */
  header: boolean;
  /** Inside `[[ … ]]`. */
  test: boolean;
  /** Right after `|`: not where a pipeline starts. */
  afterPipe: boolean;
}

const BLANK = new Set([' ', '\t']);
const META = new Set([' ', '\t', '\n', ';', '&', '|', '<', '>', '(', ')']);
const SKIPPED_RESERVED = new Set(['{', '}', 'if', 'then', 'else', 'elif', 'fi', 'while', 'until', 'do', 'done', '!', 'esac', 'time']);
const SAFE_TARGETS = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/tty', '/dev/fd/1', '/dev/fd/2']);
const WRITE_OPERATORS = new Set(['>', '>>', '>|', '&>', '&>>', '<>']);
const ASSIGNMENT_START = /^[A-Za-z_][A-Za-z0-9_]*(\[|\+?=)/;
const INERT_ARITHMETIC = /^[\s0-9+\-*/%<>=!&|^~?:(),]*$/;
const TEST_ARITHMETIC = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge', '-v', '-R']);
const newBuilding = (): Building => ({ start: -1, end: -1, words: [], header: false, test: false, afterPipe: false });

class Parser {
  private pending: Pending[] = [];
  private groupDepth = 0;
  private inCase = false;
  private cmd: Building = newBuilding();

  constructor(
    private readonly src: string,
    public pos: number,
    private readonly sink: Sink,
    private readonly nested: boolean,
    private readonly depth: number,
  ) {}

  private ask(reason: string): void {
    this.sink.reasons.push(reason);
  }

  private at(offset = 0): string {
    return this.src.charAt(this.pos + offset);
  }

  private continuesLine(offset = 0): boolean {
    return this.at(offset) === '\\' && this.at(offset + 1) === '\n';
  }

  /** Parses commands until the end, or (inside `$(`) until the closing `)`, left unconsumed. */
  parseList(inSubstitution: boolean): void {
    while (this.pos < this.src.length) {
      this.skipBlanks();
      const c = this.at();
      if (c === '') break;
      if (this.cmd.test && this.readTestToken()) continue;
      if (c === '#') {
        while (this.pos < this.src.length && this.at() !== '\n') this.pos++;
        continue;
      }
      if (c === '\n') {
        this.pos++;
        this.finishCommand();
        this.readHereDocuments();
        continue;
      }
      if (c === ')') {
        if (this.groupDepth > 0) {
          this.groupDepth--;
          this.pos++;
          this.finishCommand();
          continue;
        }
        if (inSubstitution) break;
        this.pos++;
        if (!this.inCase) this.ask('could not parse the command: unexpected `)`');
        this.finishCommand();
        continue;
      }
      if (c === '(') {
        this.openParenthesis();
        continue;
      }
      if (this.readOperator()) continue;
      const start = this.pos;
      const word = this.readWord();
      if (word === null) {
        // Not reachable for well-formed input; never loop forever.
        this.pos++;
        continue;
      }
      if (/^\d+$/.test(word.raw) && (this.at() === '<' || this.at() === '>')) {
        this.touch(start);
        this.readRedirection(word.raw);
        continue;
      }
      this.addWord(word, start);
    }
    this.finishCommand();
    if (this.groupDepth > 0) this.ask('could not parse the command: a `(` is not closed');
    if (this.pending.length > 0) this.readHereDocuments();
  }

  private skipBlanks(): void {
    for (;;) {
      if (BLANK.has(this.at())) this.pos++;
      else if (this.continuesLine()) this.pos += 2;
      else return;
    }
  }

  private touch(start: number): void {
    if (this.cmd.start < 0) this.cmd.start = start;
  }

  /** Inside `[[ … ]]`: operators are words there. True when it consumed something. */
  private readTestToken(): boolean {
    const c = this.at();
    const two = this.src.slice(this.pos, this.pos + 2);
    let token: string | null = null;
    if (two === '&&' || two === '||') token = two;
    else if (c === '(' || c === ')' || c === '<' || c === '>') token = c;
    else if (c === '\n' || c === ';' || c === '&' || c === '|') {
      this.ask('could not parse the command: a `[[` test spans lines or holds a control operator');
      this.cmd.test = false;
      return false;
    }
    if (token === null) return false;
    this.pos += token.length;
    this.cmd.words.push({ ...newWord(), raw: token, value: token });
    this.cmd.end = this.pos;
    return true;
  }

  private openParenthesis(): void {
    const start = this.pos;
    const atStart = this.cmd.words.length === 0 && this.cmd.start < 0;
    if (this.at(1) === '(' && (atStart || this.cmd.header)) {
      // `(( arithmetic ))` as a command, or `for (( …; …; … ))`.
      this.pos += 2;
      this.touch(start);
      const inner = this.readArithmetic();
      this.checkArithmetic(inner, `((${inner}))`);
      const raw = `((${inner}))`;
      this.cmd.words.push({ ...newWord(), raw, value: raw });
      this.cmd.end = this.pos;
      return;
    }
    if (atStart) {
      this.groupDepth++;
      this.pos++;
      return;
    }
    // `name() { …; }` defines a function; anything else is a syntax error.
    this.pos++;
    this.skipBlanks();
    if (this.at() === ')') {
      this.pos++;
      this.ask('defines a shell function');
      this.cmd = newBuilding();
      return;
    }
    this.ask('could not parse the command: unexpected `(`');
  }

  private checkArithmetic(inner: string, shown: string): void {
    if (!INERT_ARITHMETIC.test(inner)) this.ask(`evaluates arithmetic on data (\`${shorten(shown)}\`), which can run commands`);
  }

  /** Consumes a control operator or a redirection at `pos`; false when there is none. */
  private readOperator(): boolean {
    const c = this.at();
    const two = this.src.slice(this.pos, this.pos + 2);
    if (c === ';' || c === '|' || (c === '&' && this.at(1) !== '>')) {
      const three = this.src.slice(this.pos, this.pos + 3);
      const op = three === ';;&' ? three : ['&&', '||', '|&', ';;', ';&'].includes(two) ? two : c;
      this.pos += op.length;
      if (this.continuesLine()) this.ask('a line continuation right after an operator is not analysed');
      this.finishCommand();
      // `time` is a keyword only where a pipeline starts.
      this.cmd.afterPipe = op === '|' || op === '|&';
      return true;
    }
    if (c === '<' || c === '>' || c === '&') {
      if ((c === '<' || c === '>') && this.at(1) === '(') {
        this.readProcessSubstitution();
        return true;
      }
      this.touch(this.pos);
      this.readRedirection(null);
      return true;
    }
    return false;
  }

  /** `<(…)` or `>(…)`: an argument, unless it is the target of a redirection. */
  private readProcessSubstitution(asArgument = true): void {
    const start = this.pos;
    this.touch(start);
    this.pos += 2;
    const inner = this.readNestedList();
    this.ask(`uses process substitution: \`${this.src.charAt(start)}(${shorten(inner)})\``);
    const raw = this.src.slice(start, this.pos);
    if (asArgument) this.cmd.words.push({ ...newWord(), raw, value: raw, dynamic: true, substituted: true });
    this.cmd.end = this.pos;
  }

  private readRedirection(fd: string | null): void {
    const ops = ['&>>', '<<<', '<<-', '&>', '<<', '<&', '<>', '>>', '>&', '>|', '<', '>'];
    const op = ops.find((o) => this.src.startsWith(o, this.pos)) ?? this.at();
    const opAt = this.pos;
    this.pos += op.length;
    if (this.continuesLine()) this.ask('a line continuation right after an operator is not analysed');
    this.skipBlanks();
    if ((this.at() === '<' || this.at() === '>') && this.at(1) === '(') {
      // `done < <(cmd)`: reads from (or writes to) another command, not a file.
      this.readProcessSubstitution(false);
      return;
    }
    const target = META.has(this.at()) || this.at() === '' ? null : this.readWord();
    this.cmd.end = this.pos;
    if (target === null) {
      this.ask(`could not parse the command: \`${op}\` has no target`);
      return;
    }
    if (op === '<<' || op === '<<-') {
      this.hereDocument(target, op, opAt);
      return;
    }
    const shown = `${fd ?? ''}${op}${target.raw}`;
    if ((op === '>&' || op === '<&') && !target.dynamic && /^(\d+|-)$/.test(target.value)) return;
    if (op === '>&' || WRITE_OPERATORS.has(op)) {
      if (!target.dynamic && SAFE_TARGETS.has(target.value)) return;
      this.ask(`redirects output into a file (\`${shown}\`)`);
    }
  }

  private hereDocument(target: Word, op: string, at: number): void {
    if (this.nested || this.depth > 0) {
      this.ask('a here-document inside a substitution or `sh -c` string is not analysed');
      return;
    }
    // The delimiter is the word after quote removal, without expansions. Only plain text
    // (quoted or not) is read; `$'…'`, `$"…"` and expansions in a delimiter ask.
    if (!/^(?:[A-Za-z0-9_.:+@%,=/-]|\\[A-Za-z0-9_.:+@%,=/-]|'[A-Za-z0-9_.:+@%,=/ -]*'|"[A-Za-z0-9_.:+@%,=/ -]*")+$/.test(target.raw)) {
      this.ask(`a here-document delimiter (\`${shorten(target.raw)}\`) that is not plain text is not analysed`);
      return;
    }
    this.pending.push({ delimiter: target.value, literal: target.quoted, stripTabs: op === '<<-', at });
  }

  private addWord(word: Word, start: number): void {
    const cmd = this.cmd;
    const plain = !word.quoted && !word.dynamic;
    if (cmd.words.length === 0 && plain && cmd.start < 0) {
      if (SKIPPED_RESERVED.has(word.raw)) {
        if (word.raw === 'time' && cmd.afterPipe) {
          cmd.words.push(word);
          this.touch(start);
          cmd.end = this.pos;
          return;
        }
        if (word.raw === 'esac') this.inCase = false;
        if (word.raw === 'time' && this.at() === ' ' && this.src.startsWith(' -p', this.pos) && META.has(this.src.charAt(this.pos + 3) || ' ')) {
          this.pos += 3;
        }
        return;
      }
      if (word.raw === 'for' || word.raw === 'select') {
        cmd.header = true;
        if (word.raw === 'select') this.ask('uses `select`, which is not analysed');
      }
      if (word.raw === 'case') {
        this.ask('uses a `case` statement, which is not analysed');
        this.inCase = true;
        cmd.header = true;
      }
      if (word.raw === 'function') {
        this.ask('defines a shell function');
        cmd.header = true;
      }
      if (word.raw === 'coproc') {
        this.ask('`coproc` runs a command in the background with pipes to it');
        return;
      }
      if (word.raw === '[[') cmd.test = true;
    }
    if (cmd.test && plain && word.raw === ']]') {
      cmd.test = false;
      this.checkDoubleBracket(cmd.words);
    }
    if (cmd.words.length === 0 && !cmd.header && ASSIGNMENT_START.test(word.raw)) {
      this.assignment(word);
      this.touch(start);
      cmd.end = this.pos;
      return;
    }
    this.touch(start);
    cmd.words.push(word);
    cmd.end = this.pos;
  }

  /** A leading `NAME=value` (a prefix when a command follows; the `env` checks are in shell-commands.ts). */
  private assignment(word: Word): void {
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(word.raw)![0];
    if (word.raw.charAt(name.length) === '[') {
      this.ask(`assigns to an array element (\`${shorten(word.raw)}\`), whose subscript is evaluated`);
      return;
    }
    // `+=` appends to what the variable already holds: its value is not the word's.
    const value = word.dynamic || word.raw.charAt(name.length) !== '=' ? null : word.value.slice(name.length + 1);
    this.pendingAssignments.push({ name, value });
  }

  /** Leading assignments of the command being read; `value` null when computed when it runs. */
  private pendingAssignments: { name: string; value: string | null }[] = [];

  private checkDoubleBracket(words: readonly Word[]): void {
    // Operands that are numbers whatever the data: literal integers, `$#`, `$?`, `$$`, `$!`, `${#x}`.
    const numeric = (w: Word | undefined) => w !== undefined && /^"?(-?[0-9]+|\$[#?$!]|\$\{#[A-Za-z_][A-Za-z0-9_]*\})"?$/.test(w.raw);
    for (const [k, w] of words.entries()) {
      // Quoted operators count too: asking for `[[ "$a" == "-eq" ]]` costs less than a differential.
      if (w.dynamic || !TEST_ARITHMETIC.has(w.value)) continue;
      if (w.value !== '-v' && w.value !== '-R' && numeric(words[k - 1]) && numeric(words[k + 1])) continue;
      {
        this.ask(`\`[[ … ${w.value} … ]]\` evaluates its operands as arithmetic or variable names, which can run commands`);
        return;
      }
    }
  }

  private finishCommand(): void {
    const cmd = this.cmd;
    const assignments = this.pendingAssignments;
    this.cmd = newBuilding();
    this.pendingAssignments = [];
    if (cmd.test) {
      this.ask('could not parse the command: a `[[` is not closed');
      this.checkDoubleBracket(cmd.words);
    }
    if (cmd.header) return;
    if (cmd.words.length === 0) {
      // Only assignments: they set shell variables (exported ones reach later commands).
      for (const { name } of assignments) {
        const reason = shellAssignmentReason(name);
        if (reason !== null) this.ask(reason);
      }
      return;
    }
    // Prefixes reach the command's environment: harmless ones leave it to the rules for the command.
    for (const { name, value } of assignments) {
      const reason = prefixAssignmentReason(name, value);
      if (reason !== null) this.ask(reason);
    }
    const first = cmd.words[0]!;
    if (first.dynamic) {
      this.ask(`the command name \`${shorten(first.raw)}\` is computed when it runs, so it cannot be checked`);
    }
    const text = this.src.slice(cmd.start, cmd.end).replace(/^[ \t\n]+|[ \t\n]+$/g, '');
    emitCommand(
      text,
      cmd.words.map((w) => ({ value: w.value, dynamic: w.dynamic })),
      this.sink,
      this.nested,
      this.depth,
    );
  }

  /** Reads one word (quotes, escapes and expansions included); null at a metacharacter. */
  private readWord(): Word | null {
    const start = this.pos;
    const word: Word = newWord();
    while (this.pos < this.src.length) {
      const c = this.at();
      if (c === '(' && /^[A-Za-z_][A-Za-z0-9_]*\+?=$/.test(this.src.slice(start, this.pos))) {
        this.readArrayValue(word);
        continue;
      }
      if (META.has(c)) break;
      if (c === '\\') {
        const next = this.at(1);
        this.pos += next === '' ? 1 : 2;
        if (next !== '\n') {
          word.value += next === '' ? '\\' : next;
          word.quoted = true;
        }
      } else if (c === "'") {
        word.value += this.readSingleQuoted();
        word.quoted = true;
      } else if (c === '"') {
        this.pos++;
        word.value += this.readDoubleQuoted(word, false);
        word.quoted = true;
      } else if (c === '$') {
        word.value += this.readDollar(word, false);
      } else if (c === '`') {
        word.value += this.readBackticks(word, false);
      } else {
        if (c === '*' || c === '?' || (c === '[' && this.closesBracket())) word.dynamic = true;
        if (c === '{' && this.isBraceExpansion()) word.dynamic = true;
        if (c === '~' && (this.pos === start || /[=:]$/.test(this.src.slice(start, this.pos)))) word.dynamic = true;
        word.value += c;
        this.pos++;
      }
    }
    if (this.pos === start) return null;
    word.raw = this.src.slice(start, this.pos);
    return word;
  }

  /** At an unquoted `[`: whether a `]` follows in the same word (then it is a glob). */
  private closesBracket(): boolean {
    for (let i = this.pos + 1; i < this.src.length; i++) {
      const c = this.src.charAt(i);
      if (META.has(c)) return false;
      if (c === ']') return true;
    }
    return false;
  }

  /** At an unquoted `{`: whether a `,` or `..` follows before the word ends (bash would expand it). */
  private isBraceExpansion(): boolean {
    for (let i = this.pos + 1; i < this.src.length; i++) {
      const c = this.src.charAt(i);
      if (META.has(c)) return false;
      if (c === ',' || (c === '.' && this.src.charAt(i + 1) === '.')) return true;
      if (c === '}') return this.src.slice(this.pos + 1, i).includes(',');
    }
    return false;
  }

  private readArrayValue(word: Word): void {
    this.pos++;
    word.dynamic = true;
    for (;;) {
      while (BLANK.has(this.at()) || this.at() === '\n') this.pos++;
      const c = this.at();
      if (c === '') {
        this.ask('could not parse the command: a `(` is not closed');
        return;
      }
      if (c === ')') {
        this.pos++;
        return;
      }
      if (c === '[') this.ask('assigns array elements by subscript, which is evaluated');
      const inner = this.readWord();
      if (inner === null) {
        this.ask('could not parse an array assignment');
        this.pos++;
      } else {
        word.substituted ||= inner.substituted;
        word.value += inner.value;
      }
    }
  }

  private readSingleQuoted(): string {
    const close = this.src.indexOf("'", this.pos + 1);
    if (close < 0) {
      this.ask('could not parse the command: a single quote is not closed');
      const value = this.src.slice(this.pos + 1);
      this.pos = this.src.length;
      return value;
    }
    const value = this.src.slice(this.pos + 1, close);
    this.pos = close + 1;
    return value;
  }

  /** After the opening `"` (or over a whole here-document body when `hereDoc`). */
  private readDoubleQuoted(word: Word, hereDoc: boolean): string {
    let value = '';
    while (this.pos < this.src.length) {
      const c = this.at();
      if (c === '"' && !hereDoc) {
        this.pos++;
        return value;
      }
      if (c === '\\') {
        const next = this.at(1);
        if (next === '\n') this.pos += 2;
        else if (next === '$' || next === '`' || next === '\\' || (next === '"' && !hereDoc)) {
          value += next;
          this.pos += 2;
        } else {
          value += c;
          this.pos++;
        }
      } else if (c === '$') {
        value += this.readDollar(word, true);
      } else if (c === '`') {
        value += this.readBackticks(word, true);
      } else {
        value += c;
        this.pos++;
      }
    }
    if (!hereDoc) this.ask('could not parse the command: a double quote is not closed');
    return value;
  }

  /** At a `$`: ANSI-C and locale quotes, substitutions, arithmetic and parameters. */
  private readDollar(word: Word, inDoubleQuotes: boolean): string {
    const start = this.pos;
    const next = this.at(1);
    if (this.continuesLine(1)) this.ask('a line continuation right after `$` is not analysed');
    if (!inDoubleQuotes && next === "'") {
      this.pos++;
      word.quoted = true;
      return this.readAnsiC();
    }
    if (!inDoubleQuotes && next === '"') {
      this.pos += 2;
      word.quoted = true;
      return this.readDoubleQuoted(word, false);
    }
    if (next === '(') {
      word.dynamic = true;
      if (this.at(2) === '(') {
        this.pos += 3;
        const inner = this.readArithmetic();
        this.checkArithmetic(inner, `$((${inner}))`);
      } else {
        this.pos += 2;
        word.substituted = true;
        const inner = this.readNestedList();
        this.ask(`uses command substitution: \`$(${shorten(inner)})\``);
      }
      return this.src.slice(start, this.pos);
    }
    if (next === '[') {
      word.dynamic = true;
      this.pos += 2;
      this.readBracketArithmetic();
      this.ask('evaluates arithmetic (`$[…]`), which can run commands');
      return this.src.slice(start, this.pos);
    }
    if (next === '{') {
      word.dynamic = true;
      this.pos += 2;
      this.readParameterExpansion(word);
      return this.src.slice(start, this.pos);
    }
    if (/[A-Za-z_]/.test(next)) {
      word.dynamic = true;
      this.pos += 2;
      while (/[A-Za-z0-9_]/.test(this.at())) this.pos++;
      return this.src.slice(start, this.pos);
    }
    if (/[0-9@*#?$!-]/.test(next) && next !== '') {
      word.dynamic = true;
      this.pos += 2;
      return this.src.slice(start, this.pos);
    }
    this.pos++;
    return '$';
  }

  /** At the opening quote of `$'…'`: decodes it exactly as bash 5 does, or asks. */
  private readAnsiC(): string {
    this.pos++;
    let value = '';
    const simple: Record<string, string> = {
      a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', "'": "'", '"': '"', '?': '?',
    };
    const cannot = (what: string) => this.ask(`a \`$'…'\` escape (${what}) that is not decoded exactly`);
    while (this.pos < this.src.length) {
      const c = this.at();
      if (c === "'") {
        this.pos++;
        return value;
      }
      if (c !== '\\') {
        value += c;
        this.pos++;
        continue;
      }
      const e = this.at(1);
      this.pos += 2;
      if (Object.hasOwn(simple, e)) {
        value += simple[e];
      } else if (/[0-7]/.test(e)) {
        let digits = e;
        while (digits.length < 3 && /[0-7]/.test(this.at())) digits += this.src.charAt(this.pos++);
        const code = parseInt(digits, 8);
        if (code === 0 || code > 0x7f) cannot(`\\${digits}`);
        else value += String.fromCharCode(code);
      } else if (e === 'x' || e === 'u' || e === 'U') {
        const max = e === 'x' ? 2 : e === 'u' ? 4 : 8;
        let digits = '';
        while (digits.length < max && /[0-9A-Fa-f]/.test(this.at())) digits += this.src.charAt(this.pos++);
        if (digits === '') {
          value += `\\${e}`;
          continue;
        }
        const code = parseInt(digits, 16);
        // A byte over 0x7f is not a character; over 0x7f in \u, the result depends on the locale.
        if (code === 0 || code > 0x7f) cannot(`\\${e}${digits}`);
        else value += String.fromCharCode(code);
      } else if (e === 'c') {
        const x = this.at();
        if (!/[A-Za-z@[\]^_]/.test(x)) {
          cannot('\\c');
          continue;
        }
        this.pos++;
        const code = x.toUpperCase().charCodeAt(0) & 0x1f;
        if (code === 0) cannot('\\c@');
        else value += String.fromCharCode(code);
      } else if (e === '') {
        value += '\\';
      } else {
        value += `\\${e}`;
      }
    }
    this.ask("could not parse the command: a `$'` quote is not closed");
    return value;
  }

  /** Parses the commands of `$(…)` or `<(…)` (after the opening) and consumes `)`. */
  private readNestedList(): string {
    const start = this.pos;
    const inner = new Parser(this.src, this.pos, this.sink, true, this.depth + 1);
    inner.parseList(true);
    this.pos = inner.pos;
    const text = this.src.slice(start, this.pos);
    if (this.at() === ')') this.pos++;
    else this.ask('could not parse the command: a `$(` is not closed');
    return text;
  }

  private readBackticks(word: Word, inDoubleQuotes: boolean): string {
    const start = this.pos;
    word.dynamic = true;
    word.substituted = true;
    this.pos++;
    let inner = '';
    let closed = false;
    while (this.pos < this.src.length) {
      const c = this.at();
      if (c === '`') {
        this.pos++;
        closed = true;
        break;
      }
      const next = this.at(1);
      if (c === '\\' && (next === '`' || next === '\\' || next === '$' || (inDoubleQuotes && next === '"'))) {
        inner += next;
        this.pos += 2;
      } else {
        inner += c;
        this.pos++;
      }
    }
    if (!closed) this.ask('could not parse the command: a backtick is not closed');
    this.ask(`uses command substitution (backticks): \`${shorten(inner)}\``);
    analyzeSource(inner, this.sink, true, this.depth + 1);
    return this.src.slice(start, this.pos);
  }

  /** After `$((` or `((`: up to and including the matching `))`; returns the inside. */
  private readArithmetic(): string {
    const start = this.pos;
    let depth = 0;
    const scratch: Word = newWord();
    while (this.pos < this.src.length) {
      const c = this.at();
      if (c === '(') depth++;
      else if (c === ')') {
        if (depth === 0 && this.at(1) === ')') {
          const inner = this.src.slice(start, this.pos);
          this.pos += 2;
          return inner;
        }
        depth--;
      } else if (c === '$' || c === '`') {
        // Substitutions inside arithmetic still run.
        if (c === '$') this.readDollar(scratch, true);
        else this.readBackticks(scratch, true);
        continue;
      } else if (c === "'") {
        this.readSingleQuoted();
        continue;
      } else if (c === '"') {
        this.pos++;
        this.readDoubleQuoted(scratch, false);
        continue;
      }
      this.pos++;
    }
    this.ask('could not parse the command: a `((` is not closed');
    return this.src.slice(start);
  }

  /** After `$[`: up to and including the matching `]`. */
  private readBracketArithmetic(): void {
    let depth = 0;
    const scratch: Word = newWord();
    while (this.pos < this.src.length) {
      const c = this.at();
      if (c === '[') depth++;
      else if (c === ']') {
        this.pos++;
        if (depth === 0) return;
        depth--;
        continue;
      } else if (c === '$' || c === '`') {
        if (c === '$') this.readDollar(scratch, true);
        else this.readBackticks(scratch, true);
        continue;
      }
      this.pos++;
    }
    this.ask('could not parse the command: a `$[` is not closed');
  }

  /**
   * After `${`: up to and including the matching `}`. Only `${x}`, `${#x}` and the
   * default/alternative/error forms (`-`, `+`, `?`, with or without `:`) are proven
   * inert; their word is read like a double-quoted string.
   */
  private readParameterExpansion(word: Word): void {
    const start = this.pos;
    // `[@]`, `[*]` and a literal index are the subscripts that evaluate nothing.
    const head = /^(#?)([A-Za-z_][A-Za-z0-9_]*(?:\[(?:@|\*|[0-9]+)\])?|[0-9]+|[@*#?$!0-]|)/.exec(this.src.slice(this.pos))!;
    const name = head[2]!;
    this.pos += head[0].length;
    const c = this.at();
    const op = this.at() === ':' ? this.src.slice(this.pos, this.pos + 2) : c;
    if (name === '' && head[1] === '#' && c === '}') {
      this.pos++;
      return;
    }
    if (name !== '' && c === '}') {
      this.pos++;
      return;
    }
    if (name !== '' && head[1] === '' && ['-', '+', '?', ':-', ':+', ':?'].includes(op)) {
      this.pos += op.length;
      this.readExpansionWord(word);
      return;
    }
    const what =
      c === '[' ? 'subscript' : head[1] === '' && name === '' && c === '!' ? 'indirection' : op.startsWith(':') ? 'substring or assignment' : 'pattern or transformation';
    this.ask(`uses a parameter expansion with a ${what} (\`\${${shorten(this.src.slice(start, start + 20))}…\`), which is not proven inert`);
    this.readExpansionWord(word);
  }

  /** The rest of `${…}` up to and including its `}`, expansions inside checked. */
  private readExpansionWord(word: Word): void {
    let depth = 0;
    while (this.pos < this.src.length) {
      const c = this.at();
      if (c === '}') {
        this.pos++;
        if (depth === 0) return;
        depth--;
      } else if (c === '{') {
        depth++;
        this.pos++;
      } else if (c === '\\') {
        this.pos += 2;
      } else if (c === "'") {
        this.readSingleQuoted();
      } else if (c === '"') {
        this.pos++;
        this.readDoubleQuoted(word, false);
      } else if (c === '$') {
        this.readDollar(word, true);
      } else if (c === '`') {
        this.readBackticks(word, true);
      } else {
        this.pos++;
      }
    }
    this.ask('could not parse the command: a `${` is not closed');
  }

  /** At the start of the line after a here-document operator. */
  private readHereDocuments(): void {
    const pending = this.pending;
    this.pending = [];
    for (const doc of pending) {
      if (this.src.slice(doc.at, this.pos - 1).includes('\n')) {
        this.ask('a here-document whose command continues over several lines is not analysed');
      }
      const bodyStart = this.pos;
      let bodyEnd = -1;
      while (this.pos < this.src.length) {
        const newline = this.src.indexOf('\n', this.pos);
        const lineEnd = newline < 0 ? this.src.length : newline;
        const line = this.src.slice(this.pos, lineEnd);
        const lineStart = this.pos;
        this.pos = newline < 0 ? this.src.length : newline + 1;
        if ((doc.stripTabs ? line.replace(/^\t+/, '') : line) === doc.delimiter) {
          bodyEnd = lineStart;
          break;
        }
      }
      if (bodyEnd < 0) {
        this.ask(`a here-document is not ended by its delimiter (\`${shorten(doc.delimiter)}\`)`);
        bodyEnd = this.src.length;
      }
      if (doc.literal) continue;
      const body = this.src.slice(bodyStart, bodyEnd);
      // bash joins continued lines of an expanded body before it looks for the delimiter.
      if (/\\\n/.test(body)) this.ask('a line continuation in an expanded here-document is not analysed');
      const parser = new Parser(body, 0, this.sink, true, this.depth + 1);
      parser.readDoubleQuoted(newWord(), true);
    }
  }
}

function shorten(text: string): string {
  const flat = text.replace(/[ \t\n]+/g, ' ').trim();
  return flat.length > 40 ? `${flat.slice(0, 39)}…` : flat;
}

