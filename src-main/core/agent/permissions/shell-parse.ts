// A small analyser for POSIX/bash command lines, enough to decide permissions: it splits
// a command into simple commands (on `;`, `&&`, `||`, `|`, `|&`, `&` and newlines outside
// quotes and escapes) and lists the reasons the command can never be approved by rules
// alone (substitutions, redirections into files, shell wrappers, parse errors, ...).
//
// Decisions:
// - Subshells `( ... )` and groups `{ ...; }` are analysed, not refused: their commands
//   become parts like any other (a redirection after the group still asks).
// - `if/then/else/fi`, `while/until/do/done` and `!` are structure: the commands inside
//   become parts. A `for x in ...` header is not a part. `case` and function definitions
//   always ask.
// - Commands nested in others (inside `$(...)`, backticks, `<(...)`, the string of
//   `sh -c`/`eval`, the command after `sudo`/`xargs`/`find -exec`/`nohup`) are parts too,
//   marked `nested`, so that a deny rule sees them.
// - `parts` keep the command as written (leading `FOO=1` assignments and redirections
//   included); rule patterns are matched against `commands[i].words`: the words after
//   quote removal, without leading assignments, redirections and transparent wrappers
//   (`env`, `command`, `time`, `nice`, `timeout`, `stdbuf`).
// - A command made only of assignments (`X=1`) is not a part; setting a variable that
//   changes what runs (PATH, LD_PRELOAD, NODE_OPTIONS, ...) always asks.
import {
  assignmentName,
  dangerousAssignmentReason,
  inspectCommand,
  isDangerousVariable,
} from './shell-commands';

export interface ShellCommand {
  /** The simple command as written, trimmed. */
  text: string;
  /** What rule patterns are matched against (see the header comment). */
  words: string[];
  /** True when it runs inside another command rather than at the top level. */
  nested: boolean;
}

export interface CommandAnalysis {
  /** The simple commands, trimmed, in order (`commands[i].text`). */
  parts: string[];
  /** Human-readable reasons why this command must always ask; empty when rules may decide. */
  alwaysAsk: string[];
  commands: ShellCommand[];
}

export function analyzeCommand(command: string): CommandAnalysis {
  const sink: Sink = { commands: [], reasons: [] };
  analyzeSource(command, sink, false, 0);
  const alwaysAsk = [...new Set(sink.reasons)];
  return { parts: sink.commands.map((c) => c.text), alwaysAsk, commands: sink.commands };
}

interface Sink {
  commands: ShellCommand[];
  reasons: string[];
}

const MAX_DEPTH = 8;

function analyzeSource(source: string, sink: Sink, nested: boolean, depth: number): void {
  if (depth > MAX_DEPTH) {
    sink.reasons.push('the command nests shells too deeply to be checked');
    return;
  }
  const parser = new Parser(source, 0, sink, nested, depth);
  parser.parseList(false);
  if (parser.pos < source.length) sink.reasons.push(`could not parse the command: unexpected \`${source.charAt(parser.pos)}\``);
}

function analyzeWords(words: string[], sink: Sink, depth: number): void {
  if (depth > MAX_DEPTH) {
    sink.reasons.push('the command nests shells too deeply to be checked');
    return;
  }
  emitCommand(words.map(quoteForDisplay).join(' '), words, sink, true, depth);
}

function emitCommand(text: string, words: string[], sink: Sink, nested: boolean, depth: number): void {
  const inspection = inspectCommand(words);
  sink.commands.push({ text, words: inspection.matchWords, nested });
  sink.reasons.push(...inspection.reasons);
  for (const script of inspection.scripts) analyzeSource(script, sink, true, depth + 1);
  for (const inner of inspection.commands) analyzeWords(inner, sink, depth + 1);
}

function quoteForDisplay(word: string): string {
  if (word !== '' && /^[\w@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

interface Word {
  raw: string;
  value: string;
  /** Contains a parameter expansion or substitution, so its value is not known. */
  expanded: boolean;
  /** Contains a command or process substitution. */
  substituted: boolean;
  /** Contains an unquoted glob or brace character. */
  globbed: boolean;
  quoted: boolean;
}

function newWord(): Word {
  return { raw: '', value: '', expanded: false, substituted: false, globbed: false, quoted: false };
}

interface Pending {
  delimiter: string;
  literal: boolean;
  stripTabs: boolean;
}

interface Building {
  start: number;
  end: number;
  words: Word[];
  header: boolean;
}

const META = new Set([' ', '\t', '\n', ';', '&', '|', '<', '>', '(', ')']);
const SKIPPED_RESERVED = new Set(['{', '}', 'if', 'then', 'else', 'elif', 'fi', 'while', 'until', 'do', 'done', '!', 'esac']);
const SAFE_TARGETS = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/tty', '/dev/fd/1', '/dev/fd/2']);
const WRITE_OPERATORS = new Set(['>', '>>', '>|', '&>', '&>>', '<>']);

class Parser {
  private pending: Pending[] = [];
  private groupDepth = 0;
  private inCase = false;
  private cmd: Building = { start: -1, end: -1, words: [], header: false };

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

  /** Parses commands until the end, or (inside `$(`) until the closing `)`, left unconsumed. */
  parseList(inSubstitution: boolean): void {
    while (this.pos < this.src.length) {
      this.skipBlanks();
      const c = this.at();
      if (c === '') break;
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
      const c = this.at();
      if (c === ' ' || c === '\t' || c === '\r') this.pos++;
      else if (c === '\\' && this.at(1) === '\n') this.pos += 2;
      else return;
    }
  }

  private touch(start: number): void {
    if (this.cmd.start < 0) this.cmd.start = start;
  }

  private openParenthesis(): void {
    const start = this.pos;
    const atStart = this.cmd.words.length === 0 && this.cmd.start < 0;
    if (this.at(1) === '(' && (atStart || this.cmd.header)) {
      // `(( arithmetic ))` as a command, or `for (( ...; ...; ... ))`.
      this.pos += 2;
      this.touch(start);
      const inner = this.readArithmetic();
      this.cmd.words.push({ ...newWord(), raw: `((${inner}))`, value: `((${inner}))`, expanded: true });
      this.cmd.end = this.pos;
      return;
    }
    if (atStart) {
      this.groupDepth++;
      this.pos++;
      return;
    }
    // `name() { ...; }` defines a function; anything else is a syntax error.
    this.pos++;
    this.skipBlanks();
    if (this.at() === ')') {
      this.pos++;
      this.ask('defines a shell function');
      this.cmd = { start: -1, end: -1, words: [], header: false };
      return;
    }
    this.ask('could not parse the command: unexpected `(`');
  }

  /** Consumes a control operator or a redirection at `pos`; false when there is none. */
  private readOperator(): boolean {
    const c = this.at();
    const two = this.src.slice(this.pos, this.pos + 2);
    if (c === ';' || c === '|' || (c === '&' && this.at(1) !== '>')) {
      const three = this.src.slice(this.pos, this.pos + 3);
      const op = three === ';;&' ? three : ['&&', '||', '|&', ';;', ';&'].includes(two) ? two : c;
      this.pos += op.length;
      this.finishCommand();
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

  /** `<(...)` or `>(...)`: an argument, unless it is the target of a redirection. */
  private readProcessSubstitution(asArgument = true): void {
    const start = this.pos;
    this.touch(start);
    this.pos += 2;
    const inner = this.readNestedList();
    this.ask(`uses process substitution: \`${this.src.charAt(start)}(${shorten(inner)})\``);
    const raw = this.src.slice(start, this.pos);
    if (asArgument) this.cmd.words.push({ ...newWord(), raw, value: raw, expanded: true, substituted: true });
    this.cmd.end = this.pos;
  }

  private readRedirection(fd: string | null): void {
    const ops = ['&>>', '<<<', '<<-', '&>', '<<', '<&', '<>', '>>', '>&', '>|', '<', '>'];
    const op = ops.find((o) => this.src.startsWith(o, this.pos)) ?? this.at();
    this.pos += op.length;
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
      this.pending.push({ delimiter: target.value, literal: target.quoted, stripTabs: op === '<<-' });
      return;
    }
    const shown = `${fd ?? ''}${op}${target.raw}`;
    if (op === '>&' && !target.expanded && (/^\d+$/.test(target.value) || target.value === '-')) return;
    if (op === '>&' || WRITE_OPERATORS.has(op)) {
      if (!target.expanded && SAFE_TARGETS.has(target.value)) return;
      this.ask(`redirects output into a file (\`${shown}\`)`);
    }
  }

  private addWord(word: Word, start: number): void {
    const cmd = this.cmd;
    if (cmd.words.length === 0 && !word.quoted && !word.expanded) {
      if (cmd.start < 0 && SKIPPED_RESERVED.has(word.raw)) {
        if (word.raw === 'esac') this.inCase = false;
        return;
      }
      if (cmd.start < 0 && (word.raw === 'for' || word.raw === 'select')) cmd.header = true;
      if (word.raw === 'case') {
        this.ask('uses a `case` statement, which is not analysed');
        this.inCase = true;
        cmd.header = true;
      }
      if (word.raw === 'function') {
        this.ask('defines a shell function');
        cmd.header = true;
      }
    }
    if (cmd.words.length === 0 && !cmd.header) {
      const name = assignmentName(word.raw);
      if (name !== null) {
        if (isDangerousVariable(name)) this.ask(dangerousAssignmentReason(name));
        // Arithmetic evaluates a variable's text again: x='a[$(cmd)]'; echo $((x)) runs cmd.
        if (!word.substituted && /\$\(|`/.test(word.value)) this.ask(`stores shell code in ${name}, which runs if the shell evaluates it`);
        this.touch(start);
        cmd.end = this.pos;
        return;
      }
    }
    this.touch(start);
    cmd.words.push(word);
    cmd.end = this.pos;
  }

  private finishCommand(): void {
    const cmd = this.cmd;
    this.cmd = { start: -1, end: -1, words: [], header: false };
    if (cmd.header || cmd.words.length === 0) return;
    const first = cmd.words[0]!;
    if ((first.expanded || first.globbed) && first.raw !== '[' && first.raw !== '[[' && !first.raw.startsWith('((')) {
      this.ask(`the command name \`${first.raw}\` is computed when it runs, so it cannot be checked`);
    }
    const text = this.src.slice(cmd.start, cmd.end).trim();
    emitCommand(text, cmd.words.map((w) => w.value), this.sink, this.nested, this.depth);
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
        if (next !== '\n') word.value += next;
        word.quoted = true;
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
        if ('*?[{'.includes(c)) word.globbed = true;
        word.value += c;
        this.pos++;
      }
    }
    if (this.pos === start) return null;
    word.raw = this.src.slice(start, this.pos);
    return word;
  }

  private readArrayValue(word: Word): void {
    this.pos++;
    for (;;) {
      while (/[ \t\r\n]/.test(this.at())) this.pos++;
      const c = this.at();
      if (c === '') {
        this.ask('could not parse the command: a `(` is not closed');
        return;
      }
      if (c === ')') {
        this.pos++;
        word.expanded = true;
        return;
      }
      const inner = this.readWord();
      if (inner === null) this.pos++;
      else {
        word.expanded ||= inner.expanded;
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
      word.expanded = true;
      if (this.at(2) === '(') {
        this.pos += 3;
        this.readArithmetic();
      } else {
        this.pos += 2;
        word.substituted = true;
        const inner = this.readNestedList();
        this.ask(`uses command substitution: \`$(${shorten(inner)})\``);
      }
      return this.src.slice(start, this.pos);
    }
    if (next === '{') {
      word.expanded = true;
      this.pos += 2;
      this.readParameterExpansion(word);
      return this.src.slice(start, this.pos);
    }
    if (/[A-Za-z_]/.test(next)) {
      word.expanded = true;
      this.pos += 2;
      while (/[A-Za-z0-9_]/.test(this.at())) this.pos++;
      return this.src.slice(start, this.pos);
    }
    if (/[0-9@*#?$!-]/.test(next) && next !== '') {
      word.expanded = true;
      this.pos += 2;
      return this.src.slice(start, this.pos);
    }
    this.pos++;
    return '$';
  }

  private readAnsiC(): string {
    // At the opening quote of $'...'.
    this.pos++;
    let value = '';
    const escapes: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', v: '\v' };
    while (this.pos < this.src.length) {
      const c = this.at();
      if (c === "'") {
        this.pos++;
        return value;
      }
      if (c === '\\') {
        const next = this.at(1);
        value += Object.hasOwn(escapes, next) ? escapes[next] : `\\${next}`;
        this.pos += 2;
        continue;
      }
      value += c;
      this.pos++;
    }
    this.ask('could not parse the command: a `$\'` quote is not closed');
    return value;
  }

  /** Parses the commands of `$(...)` or `<(...)` (after the opening) and consumes `)`. */
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
    word.expanded = true;
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

  /** After `${`: up to and including the matching `}`. */
  private readParameterExpansion(word: Word): void {
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
      const bodyStart = this.pos;
      let bodyEnd = this.src.length;
      while (this.pos < this.src.length) {
        const newline = this.src.indexOf('\n', this.pos);
        const lineEnd = newline < 0 ? this.src.length : newline;
        const line = this.src.slice(this.pos, lineEnd).replace(/\r$/, '');
        const lineStart = this.pos;
        this.pos = newline < 0 ? this.src.length : newline + 1;
        if ((doc.stripTabs ? line.replace(/^\t+/, '') : line) === doc.delimiter) {
          bodyEnd = lineStart;
          break;
        }
      }
      if (doc.literal) continue;
      // An unquoted delimiter means the body is expanded like a double-quoted string.
      const body = new Parser(this.src.slice(bodyStart, bodyEnd), 0, this.sink, true, this.depth + 1);
      body.readDoubleQuoted(newWord(), true);
    }
  }
}

function shorten(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 40 ? `${flat.slice(0, 39)}…` : flat;
}
