import { describe, expect, it } from 'vitest';
import { approvalReasonText } from './approval-reason';
import { TITLE_PART_CHARS, humanizeName, mcpToolParts, toolTitle, toolTitleText } from './tool-title';

/** Every tool the harness defines (src-main/core/tools, agent/middleware, extensions/mcp), with typical arguments. */
const BUILT_IN: Record<string, [Record<string, unknown>, string]> = {
  ls: [{ path: '/src' }, 'List src'],
  read_file: [{ file_path: '/README.md' }, 'Read README.md'],
  write_file: [{ file_path: '/notes.md', content: 'x' }, 'Write notes.md'],
  edit_file: [{ file_path: '/pricing.py', old_string: 'a', new_string: 'b' }, 'Edit pricing.py'],
  glob: [{ pattern: '**/*.py', path: '/src' }, 'Find **/*.py in src'],
  grep: [{ pattern: 'TODO' }, 'Search for TODO'],
  execute: [{ command: 'pytest -q' }, 'Run pytest -q'],
  write_todos: [{ todos: [{}, {}, {}] }, 'Update the todo list (3 items)'],
  task: [{ subagent_type: 'general-purpose', description: 'Find the bug\nand more' }, 'Subagent (general-purpose): Find the bug …'],
  tool_search: [{ query: 'weather' }, 'Search MCP tools for weather'],
};

describe('tool titles', () => {
  it('names every built-in tool in words, never by its raw name', () => {
    for (const [name, [args, expected]] of Object.entries(BUILT_IN)) {
      const title = toolTitleText(name, args);
      expect(title, name).toBe(expected);
      expect(title, name).not.toContain(name.includes('_') ? name : `${name} `);
      expect(title, name).not.toContain('`');
    }
  });

  it("names another agent's kind of call Deepdesk has no tool for by the agent's own title", () => {
    expect(toolTitleText('agent:fetch', { title: 'Fetch https://example.com\nmore' })).toBe('Fetch https://example.com …');
    expect(toolTitleText('agent:think', {})).toBe('Think');
  });

  it('shows commands and patterns as code parts and paths as path parts', () => {
    expect(toolTitle('execute', { command: 'pytest -q' }).parts).toEqual([
      { kind: 'text', text: 'Run ' },
      { kind: 'code', text: 'pytest -q' },
    ]);
    expect(toolTitle('edit_file', { file_path: '/src/pricing.py' }).parts).toEqual([
      { kind: 'text', text: 'Edit ' },
      { kind: 'path', path: '/src/pricing.py', text: 'src/pricing.py' },
    ]);
    // A command holding backticks is one code part, as written.
    expect(toolTitle('execute', { command: 'echo `whoami`' }).parts[1]).toEqual({ kind: 'code', text: 'echo `whoami`' });
  });

  it('says something sensible without arguments', () => {
    expect(toolTitleText('execute', {})).toBe('Run a command');
    expect(toolTitleText('read_file', undefined)).toBe('Read a file');
    expect(toolTitleText('ls', {})).toBe('List the folder');
    expect(toolTitleText('ls', { path: '/' })).toBe('List the folder');
    expect(toolTitleText('task', {})).toBe('Subagent');
    expect(toolTitleText('write_todos', 'garbage')).toBe('Update the todo list');
    expect(toolTitleText('read_file', { file_path: '/skills/release-notes/SKILL.md' })).toBe('Read the skill release-notes');
  });

  it('names MCP tools by tool and server, whatever characters they hold', () => {
    expect(toolTitleText('mcp__everything__echo', { message: 'hi' })).toBe('echo (everything server)');
    expect(toolTitleText('mcp__server-filesystem__read_text_file', {})).toBe('read text file (server-filesystem server)');
    expect(mcpToolParts('mcp__a__b__c')).toEqual({ server: 'a', tool: 'b__c' });
    expect(toolTitleText('mcp__a__b__c', {})).toBe('b c (a server)');
    // Not an MCP tool's shape: humanised as any other name.
    expect(mcpToolParts('mcp__alone')).toBeNull();
    expect(mcpToolParts('mcp____x')).toBeNull();
    expect(toolTitleText('mcp__alone', {})).toBe('Mcp alone');
    // Markup and odd characters are text, kept as they are (the renderer escapes what is invisible).
    expect(toolTitleText('mcp__<b>x</b>__<img src=x onerror=alert(1)>', {})).toBe('<img src=x onerror=alert(1)> (<b>x</b> server)');
    expect(toolTitleText('mcp__s\u202E__t\u200Bx', {})).toBe('t\u200Bx (s\u202E server)');
  });

  it('humanises unknown tools and caps what the model made', () => {
    expect(toolTitleText('delete_file', { file_path: '/a' })).toBe('Delete a');
    expect(toolTitleText('fetch_web-page', {})).toBe('Fetch web page');
    expect(humanizeName('___')).toBe('___');
    const long = toolTitleText(`mcp__${'s'.repeat(200)}__${'t'.repeat(200)}`, {});
    expect(long.length).toBeLessThanOrEqual(64 * 2 + ' ( server)'.length);
    const command = toolTitle('execute', { command: 'x'.repeat(1000) }).parts[1]!;
    expect(command.text.length).toBe(TITLE_PART_CHARS);
    expect(command.text.endsWith('…')).toBe(true);
    expect(toolTitleText('read_file', { file_path: `/${'d/'.repeat(200)}f` }).length).toBeLessThanOrEqual('Read '.length + TITLE_PART_CHARS);
  });
});

describe('approval reasons', () => {
  // As core sends them: its words (`reason`, for terminals and editors) and the same reason as data (`why`).
  const edit = { tool: 'edit_file', paths: ['/pricing.py'] };
  it('drop the subject the title already names', () => {
    expect(approvalReasonText('edit_file', { file_path: '/pricing.py' }, '`edit_file` on /pricing.py needs approval (writes, edits and deletes ask by default)', { kind: 'rule', subject: edit, decision: 'ask', rule: { description: 'writes, edits and deletes ask by default' } })).toBe(
      'Writes, edits and deletes ask by default.',
    );
    expect(approvalReasonText('execute', { command: 'pytest -q' }, '`pytest -q` needs approval (shell commands ask by default)', { kind: 'rule', subject: { command: 'pytest -q' }, decision: 'ask', rule: { description: 'shell commands ask by default' } })).toBe('Shell commands ask by default.');
    expect(approvalReasonText('execute', { command: 'pytest -q' }, '`pytest -q` is not covered by an allow rule', { kind: 'not-allowed', subject: { command: 'pytest -q' } })).toBe('No allow rule covers it.');
    expect(approvalReasonText('mcp__everything__echo', {}, "`mcp__everything__echo` is an MCP server's tool, and no allow rule covers it", { kind: 'mcp-tool-not-allowed', subject: { tool: 'mcp__everything__echo', paths: [] } })).toBe(
      'Tools of MCP servers ask unless an allow rule covers them.',
    );
    expect(approvalReasonText('write_file', { file_path: '/a' }, '`write_file` on /a needs approval (rule "no-writes")', { kind: 'rule', subject: { tool: 'write_file', paths: ['/a'] }, decision: 'ask', rule: { id: 'no-writes' } })).toBe('Rule "no-writes" asks for approval.');
    expect(approvalReasonText('write_file', { file_path: '/a' }, '`write_file` on /a needs approval (rule 3)', { kind: 'rule', subject: { tool: 'write_file', paths: ['/a'] }, decision: 'ask', rule: { index: 2 } })).toBe('Rule 3 asks for approval.');
    expect(approvalReasonText('execute', { command: 'rm -rf build' }, '`rm -rf build` is denied (never remove files)', { kind: 'rule', subject: { command: 'rm -rf build' }, decision: 'deny', rule: { description: 'never remove files' } })).toBe('Refused: never remove files.');
  });

  it('keep a subject that says more than the title, and other reasons in the words core gives them', () => {
    // One part of a longer command asked: that part is the news.
    expect(approvalReasonText('execute', { command: 'ls && curl x' }, '`curl x` is not covered by an allow rule', { kind: 'not-allowed', subject: { command: 'curl x' } })).toBe('`curl x` is not covered by an allow rule');
    // A linked path: where it leads is the news.
    expect(approvalReasonText('edit_file', { file_path: '/l' }, 'x', { kind: 'not-allowed', subject: { tool: 'edit_file', paths: ['/real (through the symlink /l)'] } })).toBe('`edit_file` on /real (through the symlink /l) is not covered by an allow rule');
    expect(approvalReasonText('execute', { command: 'x' }, 'this command asks to run outside the sandbox, so it always needs approval', { kind: 'outside-sandbox' })).toBe(
      'This command asks to run outside the sandbox, so it always needs approval',
    );
    expect(approvalReasonText('write_file', { file_path: '/.env' }, 'x', { kind: 'protected-path', path: '/.env', protects: 'writes to .env files always ask' })).toBe('Writes to .env files always ask (/.env)');
  });

  it("say the reason from core's data, whatever its words", () => {
    // Other words in `reason` (another wording, another language): the card says the same.
    const reworded = 'la règle demande une approbation';
    expect(approvalReasonText('execute', { command: 'pytest -q' }, reworded, { kind: 'not-allowed', subject: { command: 'pytest -q' } })).toBe('No allow rule covers it.');
    expect(approvalReasonText('mcp__s__t', {}, reworded, { kind: 'mcp-tool-not-allowed', subject: { tool: 'mcp__s__t', paths: [] } })).toBe('Tools of MCP servers ask unless an allow rule covers them.');
    expect(approvalReasonText('edit_file', { file_path: '/pricing.py' }, reworded, { kind: 'rule', subject: edit, decision: 'ask', rule: { id: 'r' } })).toBe('Rule "r" asks for approval.');
    // Without the data (an older host), the words are shown as written: never parsed.
    expect(approvalReasonText('execute', { command: 'pytest -q' }, '`pytest -q` is not covered by an allow rule')).toBe('`pytest -q` is not covered by an allow rule');
  });
});
