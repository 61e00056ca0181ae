// The "always allow" rule the approval dialog offers, scoped as narrowly as is useful:
// - execute: one pattern per top-level command: `git status`, `npm test`, `npm run build`,
//   `python -m pytest`; the bare name for programs whose writing and executing forms are
//   known (`ls`, `cat`, `sort`, `rg`, …: those forms still ask, see command-effects.ts);
//   otherwise the whole command as written (patterns match by prefix, so later arguments
//   may follow). No rule is offered for a command that would still ask under it (one
//   that always asks, or a writing/executing form);
// - write_file / edit_file: writes and edits of exactly that file; delete: that file;
// - reads: that tool on that path; an MCP tool (`mcp__server__tool`) or any other tool: that tool.
import { hasEffectTable } from './command-effects';
import { splitPatternWords } from './command-patterns';
import { protectedPattern } from './protected-paths';
import { analyzeCommand } from './shell-parse';
import { argsOf, isMcpTool, operationOf, targetPaths } from './tool-targets';
import type { Operation, PermissionRequest, PermissionRule } from './types';

const SUBCOMMAND_TOOLS = new Set([
  'git', 'npm', 'pnpm', 'yarn', 'bun', 'npx', 'bunx', 'pnpx', 'deno', 'cargo', 'go', 'docker', 'podman', 'kubectl',
  'helm', 'make', 'pip', 'pip3', 'uv', 'poetry', 'pdm', 'hatch', 'dotnet', 'gh', 'gradle', 'mvn', 'brew', 'rustup',
  'terraform', 'composer', 'mix', 'swift', 'flutter', 'dart', 'vitest', 'tsc', 'pytest', 'jest', 'rake', 'bundle',
]);
const RUNNERS = new Set(['run', 'exec', 'x', 'dlx']);
const SUBCOMMAND = /^@?[A-Za-z0-9][\w:.@/+-]*$/;

export function suggestAllowRule(request: PermissionRequest): PermissionRule | undefined {
  const operation = operationOf(request.tool);
  if (operation === 'execute') return suggestCommandRule(request);
  if (isMcpTool(request.tool)) {
    return { tools: [request.tool], decision: 'allow', description: `Always allow the MCP tool \`${request.tool}\`, whatever its arguments` };
  }
  const paths = targetPaths(request);
  if (operation === null || paths.length === 0) {
    return { tools: [request.tool], decision: 'allow', description: `Always allow \`${request.tool}\`` };
  }
  const list = paths.join(', ');
  const stillAsks = paths.some((p) => protectedPattern(p) !== null)
    ? ' It is a protected path, so writing to it will still ask.'
    : '';
  const globs = paths.map(literalGlob);
  if (operation === 'write' || operation === 'edit') {
    const operations: Operation[] = ['write', 'edit'];
    return { operations, paths: globs, decision: 'allow', description: `Always allow writing and editing ${list} (this file only).${stillAsks}` };
  }
  if (operation === 'delete') {
    return { operations: ['delete'], paths: globs, decision: 'allow', description: `Always allow deleting ${list} (this path only).${stillAsks}` };
  }
  return { tools: [request.tool], paths: globs, decision: 'allow', description: `Always allow \`${request.tool}\` on ${list} (this path only)` };
}

function suggestCommandRule(request: PermissionRequest): PermissionRule | undefined {
  const command = argsOf(request).command;
  const analysis = analyzeCommand(typeof command === 'string' ? command : '');
  const top = analysis.commands.filter((c) => !c.nested);
  if (top.length === 0) {
    return { tools: ['execute'], commands: [], decision: 'allow', description: 'Nothing to allow: the command is empty' };
  }
  // Only offer a rule that would let this very command run without asking: never for a
  // command that always asks, nor for a form that writes or runs programs.
  if (analysis.alwaysAsk.length > 0 || top.some((c) => c.escalation !== undefined)) return undefined;
  const patterns = [...new Set(top.map((c) => commandPrefix(c.words)).filter((p) => p !== ''))];
  if (patterns.length === 0) return undefined;
  const list = patterns.map((p) => `\`${p}\``).join(', ');
  return {
    tools: ['execute'],
    commands: patterns,
    decision: 'allow',
    description: `Always allow the command${patterns.length > 1 ? 's' : ''} ${list}, with any further arguments.`,
  };
}

/**
 * The pattern for one simple command (its rule-matching words): a program whose forms are
 * known (command-effects.ts) by its name (`git` by its subcommand), since its writing
 * forms still ask; project tools by their subcommand (`npm test`); anything else as written.
 */
export function commandPrefix(words: readonly string[]): string {
  const [name, second, third] = words;
  if (name === undefined || name === '') return '';
  if (name === 'git' && second !== undefined && SUBCOMMAND.test(second)) return `git ${second}`;
  if (hasEffectTable(name) && name !== 'git' && !SUBCOMMAND_TOOLS.has(name)) return patternWord(name);
  if (SUBCOMMAND_TOOLS.has(name) && second !== undefined && SUBCOMMAND.test(second)) {
    if (RUNNERS.has(second) && third !== undefined && SUBCOMMAND.test(third)) return `${name} ${second} ${third}`;
    return `${name} ${second}`;
  }
  if (/^python[\d.]*$/.test(name) && second === '-m' && third !== undefined && SUBCOMMAND.test(third)) return `${name} -m ${third}`;
  return words.map(patternWord).join(' ');
}

/** Writes a word so that splitPatternWords reads it back unchanged. */
function patternWord(word: string): string {
  const plain = splitPatternWords(word);
  if (plain.length === 1 && plain[0] === word) return word;
  return word.includes('"') ? `'${word}'` : `"${word}"`;
}

/**
 * A glob that matches exactly this virtual path: glob characters become one-character
 * classes; braces (which compileGlob expands before anything else) become `?`.
 */
export function literalGlob(path: string): string {
  return path.replace(/[*?[\]{}]/g, (c) => (c === '{' || c === '}' ? '?' : `[${c}]`));
}
