// What README.md and docs/*.md claim that can be checked mechanically: the `deepdesk` command
// lines they show (against the CLI's own command table), the `npm run` scripts they name
// (against package.json) and their relative links (against the files). scripts/docs.test.ts
// runs it in `npm test`, so the docs cannot drift from the code.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { COMMAND_OPTIONS, HELP_ARGUMENTS, isCommandName, SUBCOMMANDS, VERSION_ARGUMENTS } from '../src-main/cli/command-table';

/** One thing a document gets wrong, with where. */
export interface DocProblem {
  file: string;
  line: number;
  problem: string;
}

/** A piece of code in a document: a fenced block's line, or an inline code span. */
interface CodeText {
  text: string;
  line: number;
}

const FENCE = /^\s*(```|~~~)/;

/** The document without its fenced blocks (replaced by blank lines, so line numbers stay), and the blocks' lines. */
function splitFences(markdown: string): { prose: string; blockLines: CodeText[] } {
  const prose: string[] = [];
  const blockLines: CodeText[] = [];
  let inFence = false;
  markdown.split('\n').forEach((line, i) => {
    if (FENCE.test(line)) {
      inFence = !inFence;
      prose.push('');
    } else if (inFence) {
      blockLines.push({ text: line, line: i + 1 });
      prose.push('');
    } else {
      prose.push(line);
    }
  });
  return { prose: prose.join('\n'), blockLines };
}

const lineAt = (text: string, index: number): number => text.slice(0, index).split('\n').length;

/** Inline code spans (`x`, `` x ` y ``), which may run over a line break. */
function inlineCode(prose: string): CodeText[] {
  const spans: CodeText[] = [];
  for (const m of prose.matchAll(/(?<!`)(`+)(?!`)([\s\S]+?)(?<!`)\1(?!`)/g)) spans.push({ text: m[2]!.replace(/\s*\n\s*/g, ' ').trim(), line: lineAt(prose, m.index) });
  return spans;
}

/** Every piece of code in a document: each fenced line (continuations joined) and each inline span. */
export function codeTexts(markdown: string): { code: CodeText[]; prose: string } {
  const { prose, blockLines } = splitFences(markdown);
  const joined: CodeText[] = [];
  for (const entry of blockLines) {
    const last = joined.at(-1);
    if (last !== undefined && last.text.endsWith('\\')) last.text = `${last.text.slice(0, -1).trimEnd()} ${entry.text.trim()}`;
    else joined.push({ ...entry });
  }
  return { code: [...joined, ...inlineCode(prose)], prose };
}

/** The shell comment of a code line, gone (` # …`); a `#` inside a word (`url#branch`) stays. */
const withoutComment = (text: string): string => text.replace(/(^|\s)#\s.*$/, '');

/** The `deepdesk …` command lines in a piece of code, each up to the end of its line or shell operator. */
export function deepdeskInvocations(code: string): string[] {
  const found: string[] = [];
  for (const m of withoutComment(code).matchAll(/(?:^|[\s(;&])deepdesk\s+([^\s`;&<>()][^;&<>]*)/g)) found.push(m[1]!.trim());
  return found;
}

type Options = Record<string, { short?: string }>;

/** The flags a command's parser accepts, as written on a command line (`--json`, `-e`). */
function flagsOf(options: Options): Set<string> {
  const flags = new Set<string>();
  for (const [long, option] of Object.entries(options)) {
    flags.add(`--${long}`);
    if (option.short !== undefined) flags.add(`-${option.short}`);
  }
  return flags;
}

const FLAG = /^(-{1,2}[A-Za-z][\w-]*)/;

/** The flags written in one alternative of a command line, before a `--` (after it come another program's arguments). */
function flagsIn(words: string[]): string[] {
  const flags: string[] = [];
  for (const raw of words) {
    const word = raw.replace(/^[[(]+/, '');
    if (word === '--') break;
    const m = FLAG.exec(word);
    if (m !== null) flags.push(m[1]!);
  }
  return flags;
}

/** What is wrong with one `deepdesk …` command line (everything after `deepdesk`); empty when nothing. */
export function invocationProblems(invocation: string): string[] {
  const words = invocation.split(/\s+/).filter((w) => w !== '');
  const first = words[0] ?? '';
  if ((HELP_ARGUMENTS as readonly string[]).includes(first) || (VERSION_ARGUMENTS as readonly string[]).includes(first)) return [];
  // A placeholder (`deepdesk <command>`) or a word that is no command line (`deepdesk X.Y.Z`) is not checked.
  if (!/^-?-?[a-z][a-z-]*$/.test(first) || /^[A-Z]/.test(first)) return [];
  if (!isCommandName(first)) return [`\`deepdesk ${first}\`: no such command`];
  const accepted = flagsOf(COMMAND_OPTIONS[first] as Options);
  const subcommands: readonly string[] | undefined = (SUBCOMMANDS as Partial<Record<string, readonly string[]>>)[first];
  const problems: string[] = [];
  // `memories ls | cat PATH | write PATH`: alternatives of one command, each its own subcommand.
  const alternatives = words
    .slice(1)
    .join(' ')
    .split(/\s\|\s/)
    .map((alt) => alt.split(' ').filter((w) => w !== ''));
  alternatives.forEach((alt, i) => {
    const sub = alt[0];
    const isSubcommandSlot = subcommands !== undefined && sub !== undefined && /^[a-z][a-z-]*$/.test(sub) && (i > 0 || !sub.startsWith('-'));
    if (isSubcommandSlot && !subcommands.includes(sub)) problems.push(`\`deepdesk ${first} ${sub}\`: no such subcommand (${subcommands.join(', ')})`);
    for (const flag of flagsIn(alt)) if (!accepted.has(flag)) problems.push(`\`deepdesk ${first} ${flag}\`: ${first} has no ${flag}`);
  });
  return problems;
}

/** `npm run NAME` and `npm start` / `npm test` in a piece of code: the package.json scripts they need. */
export function npmScripts(code: string): string[] {
  const names: string[] = [];
  for (const m of withoutComment(code).matchAll(/\bnpm\s+(?:run(?:-script)?\s+([\w:.-]+)|(start|test)\b)/g)) names.push((m[1] ?? m[2])!);
  return names;
}

/** Relative link targets in prose (`[x](path)`, `![x](path)`), without their `#anchor`. */
export function relativeLinks(prose: string): { target: string; line: number }[] {
  const withoutCode = prose.replace(/(?<!`)(`+)(?!`)[\s\S]+?(?<!`)\1(?!`)/g, (span) => span.replace(/[^\n]/g, ' '));
  const links: { target: string; line: number }[] = [];
  for (const m of withoutCode.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const target = m[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue;
    links.push({ target: target.split('#')[0]!, line: lineAt(withoutCode, m.index) });
  }
  return links;
}

/** Every problem of one document at `file`, checked against the repository at `repo`. */
export function checkDocument(repo: string, file: string, scripts: Record<string, string>): DocProblem[] {
  const markdown = readFileSync(file, 'utf8');
  const { code, prose } = codeTexts(markdown);
  const shown = relative(repo, file);
  const problems: DocProblem[] = [];
  for (const piece of code) {
    for (const invocation of deepdeskInvocations(piece.text)) for (const problem of invocationProblems(invocation)) problems.push({ file: shown, line: piece.line, problem });
    for (const name of npmScripts(piece.text)) if (!(name in scripts)) problems.push({ file: shown, line: piece.line, problem: `\`npm run ${name}\`: package.json has no script '${name}'` });
  }
  for (const link of relativeLinks(prose)) {
    if (!existsSync(join(dirname(file), decodeURIComponent(link.target)))) problems.push({ file: shown, line: link.line, problem: `link to ${link.target}: no such file` });
  }
  return problems;
}
