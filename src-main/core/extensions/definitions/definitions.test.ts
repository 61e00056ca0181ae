// Custom commands and subagents in Claude Code's format, read from real folders: names from
// sub-folders and plugins, front matter as Claude Code's files write it, the folder's only
// after trust and winning over the person's, one line for what its author got wrong.

import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentItems, discoverAgents } from './agents';
import { commandMessage, commandItems, discoverCommands } from './commands';

let root: string;
let dataDir: string;
let home: string;
let folder: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'dd-definitions-')));
  dataDir = join(root, 'data');
  home = join(root, 'home');
  folder = join(root, 'project');
  mkdirSync(folder);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const put = (path: string, text: string): void => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
};
const trustAll = (): boolean => true;
const trustNone = (): boolean => false;

describe('custom commands', () => {
  it("reads the person's and the folder's, sub-folders as folder:name, front matter as Claude Code writes it", () => {
    put(join(home, '.claude', 'commands', 'commit.md'), '---\nallowed-tools: Bash(git add:*), Bash(git commit:*)\nargument-hint: [message]\ndescription: Create a git commit\n---\n\nCommit with message: $ARGUMENTS\n');
    put(join(dataDir, 'commands', 'frontend', 'component.md'), '# Make a component\nCreate $1 in $2.\n');
    put(join(folder, '.claude', 'commands', 'commit.md'), '---\ndescription: The folder commit\n---\nFolder commit $ARGUMENTS\n');
    const found = discoverCommands({ dataDir, home, folder, isTrusted: trustAll });
    expect(found.problems).toEqual([]);
    const byName = Object.fromEntries(found.commands.map((c) => [c.name, c]));
    expect(Object.keys(byName).sort()).toEqual(['commit', 'frontend:component']);
    expect(byName.commit!).toMatchObject({ source: 'project', description: 'The folder commit' });
    expect(byName['frontend:component']!).toMatchObject({ source: 'user', description: 'Make a component' });
    const untrustedFolder = discoverCommands({ dataDir, home, folder, isTrusted: trustNone });
    expect(untrustedFolder.commands.find((c) => c.name === 'commit')).toMatchObject({ source: 'user', description: 'Create a git commit', argumentHint: '[message]', allowedTools: ['Bash(git add:*)', 'Bash(git commit:*)'] });
    expect(untrustedFolder.untrusted.map((c) => c.name)).toEqual(['commit']);
  });

  it("reads front matter as Claude Code does: its documented `argument-hint: [file] [focus]`, a description with `: `, unquoted rule lists", () => {
    put(join(dataDir, 'commands', 'review.md'), '---\nargument-hint: [file] [focus]\ndescription: Review: a file, with a focus\nallowed-tools: Bash(git add:*), Bash(git status:*)\nmodel: claude-3-5-haiku-20241022\n---\nReview $1 for $2.\n');
    put(join(dataDir, 'commands', 'tag.md'), '---\nargument-hint: add [tagId] | remove [tagId] | list\ndescription: >\n  Manage tags\nallowed-tools: [Bash(git tag:*), Read]\n---\nTags\n');
    put(join(dataDir, 'commands', 'wip.md'), '---\ndescription: [WIP] Fix: the build\nargument-hint: @file\n---\nWIP\n');
    const found = discoverCommands({ dataDir, home, isTrusted: trustNone });
    expect(found.problems).toEqual([]);
    const byName = Object.fromEntries(found.commands.map((c) => [c.name, c]));
    expect(byName.review).toMatchObject({ argumentHint: '[file] [focus]', description: 'Review: a file, with a focus', allowedTools: ['Bash(git add:*)', 'Bash(git status:*)'], model: 'claude-3-5-haiku-20241022' });
    expect(byName.tag).toMatchObject({ argumentHint: 'add [tagId] | remove [tagId] | list', description: 'Manage tags\n', allowedTools: ['Bash(git tag:*)', 'Read'] });
    expect(byName.wip).toMatchObject({ description: '[WIP] Fix: the build', argumentHint: '@file' });
  });

  it('puts the arguments in, and asks for a !`command` line to be run with execute', () => {
    expect(commandMessage({ body: 'Fix issue #$1 with priority $2. All: $ARGUMENTS\n' }, '123 "very high"', ['123', 'very high'])).toBe('Fix issue #123 with priority very high. All: 123 "very high"');
    expect(commandMessage({ body: 'Review the code.\n' }, 'src/a.ts', ['src/a.ts'])).toBe('Review the code.\n\nARGUMENTS: src/a.ts');
    const withRun = commandMessage({ body: '## Context\n- Status: !`git status`\n\nWrite a commit message.' }, '', []);
    expect(withRun).toBe('First run this command with the execute tool, and use the output where the request below refers to it:\n- `git status`\n\n## Context\n- Status: (the output of `git status`)\n\nWrite a commit message.');
  });

  it("is one line naming the file for what its author got wrong, and the folder's are trust entries", () => {
    put(join(folder, '.claude', 'commands', 'bad name!.md'), 'x\n');
    put(join(folder, '.claude', 'commands', 'broken.md'), '---\ndescription: "unclosed\n---\nx\n');
    put(join(folder, '.deepdesk', 'commands', 'ok.md'), 'Do it\n');
    const entries = commandItems(folder);
    expect(entries.items.map(({ entry: e }) => [e.key, e.label])).toEqual([['command:.deepdesk/commands/ok.md', 'Command /ok: .deepdesk/commands/ok.md']]);
    expect([...entries.problems].sort()).toEqual([expect.stringMatching(/bad name!\.md: 'bad name!' cannot be part of a command's name/), expect.stringMatching(/broken\.md: front matter is not valid YAML/)]);
  });
});

describe('custom subagents', () => {
  it('reads name, description, tools (a list or a comma-separated string) and model; the body is the system prompt', () => {
    put(join(home, '.claude', 'agents', 'reviewer.md'), '---\nname: code-reviewer\ndescription: Reviews code: use after changes\ntools: Read, Grep, Glob\nmodel: sonnet\n---\nYou are a senior reviewer.\n');
    put(join(folder, '.claude', 'agents', 'tester.md'), '---\nname: tester\ndescription: Runs tests\ntools:\n  - Bash\n  - Read\nmodel: openai:gpt-5\n---\nRun the tests.\n');
    const found = discoverAgents({ dataDir, home, folder, isTrusted: trustAll });
    expect(found.problems).toEqual([]);
    expect(found.agents).toEqual([
      expect.objectContaining({ name: 'tester', tools: ['Bash', 'Read'], model: 'openai:gpt-5', systemPrompt: 'Run the tests.', source: 'project' }),
      expect.objectContaining({ name: 'code-reviewer', description: 'Reviews code: use after changes', tools: ['Read', 'Grep', 'Glob'], systemPrompt: 'You are a senior reviewer.', source: 'user', note: expect.stringContaining("'sonnet'") }),
    ]);
    expect(found.agents[1]!.model).toBeUndefined();
    expect(discoverAgents({ dataDir, home, folder, isTrusted: trustNone }).agents.map((a) => a.name)).toEqual(['code-reviewer']);
  });

  it("refuses with one line what no reading can save, and lists the folder's as trust entries", () => {
    put(join(folder, '.claude', 'agents', 'noname.md'), '---\ndescription: x\n---\nbody\n');
    put(join(folder, '.claude', 'agents', 'good.md'), '---\nname: good\ndescription: fine\ntools: Read\n---\nbody\n');
    const entries = agentItems(folder);
    expect(entries.items.map(({ entry: e }) => e.label)).toEqual(['Subagent good (tools: Read): .claude/agents/good.md']);
    expect(entries.problems).toEqual([expect.stringMatching(/noname\.md: name: missing/)]);
  });
});
