import { describe, expect, it } from 'vitest';
import type { McpHubApi, McpPromptInfo } from '../../core/extensions/mcp/types';
import type { CustomCommand } from '../../core/extensions/definitions/commands';
import { listCommands, parseSlash, promptArguments, resolveSlash, SlashCommandError, splitWords, type CommandSkill } from './slash-commands';

const review: McpPromptInfo = {
  server: 'gh',
  name: 'review',
  qualifiedName: 'mcp__gh__review',
  arguments: [
    { name: 'pr', required: true },
    { name: 'focus', required: false },
  ],
};

/** The prompt calls a hub gets, recorded (the real hub runs in hub.test.ts and the app tests). */
function hubWith(prompts: McpPromptInfo[]): McpHubApi & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    prompts: () => prompts,
    getPrompt: async (name: string, args: Record<string, string>) => {
      calls.push(`${name} ${JSON.stringify(args)}`);
      return `Review PR ${args.pr}${args.focus ? ` for ${args.focus}` : ''}`;
    },
  } as unknown as McpHubApi & { calls: string[] };
}

const skill = (name: string, body: string): CommandSkill => ({ name, description: `the ${name} skill`, body: async () => `${body}\n` });

describe('slash commands', () => {
  it('are only a first word that is a name: a path is a message', () => {
    expect(parseSlash('/compact')).toEqual({ name: 'compact', args: '' });
    expect(parseSlash('  /mode   plan ')).toEqual({ name: 'mode', args: 'plan' });
    expect(parseSlash('/etc/hosts looks odd')).toBeNull();
    expect(parseSlash('why does /compact exist?')).toBeNull();
    expect(parseSlash('/')).toBeNull();
  });

  it('built-ins ask for what they do, and refuse bad arguments in one line', async () => {
    expect(await resolveSlash('/compact', {})).toEqual({ kind: 'compact' });
    expect(await resolveSlash('/clear', {})).toEqual({ kind: 'clear' });
    expect(await resolveSlash('/model anthropic:claude-sonnet-4-5', {})).toEqual({ kind: 'model', model: 'anthropic:claude-sonnet-4-5' });
    expect(await resolveSlash('/mode auto', {})).toEqual({ kind: 'mode', mode: 'auto' });
    await expect(resolveSlash('/mode yolo', {})).rejects.toThrow('/mode needs one of ask, edit, auto, plan');
    await expect(resolveSlash('/model gpt', {})).rejects.toThrow(/needs PROVIDER:MODEL/);
    await expect(resolveSlash('/clear now', {})).rejects.toThrow('/clear takes no arguments');
  });

  it('an unknown command is an error, never a message', async () => {
    await expect(resolveSlash('/frobnicate the thing', {})).rejects.toEqual(new SlashCommandError('unknown command /frobnicate: type / to see the commands'));
    await expect(resolveSlash('/mcp__gh__nope', { mcp: hubWith([review]) })).rejects.toThrow('/mcp__gh__nope is not a prompt of a connected MCP server');
  });

  it("a skill's body and the arguments become the message; a built-in wins a name clash", async () => {
    const skills = () => [skill('pdf', '# Reading PDFs\nUse pdftotext.'), skill('compact', 'not this')];
    expect(await resolveSlash('/pdf report.pdf page 2', { skills })).toEqual({ kind: 'send', text: '# Reading PDFs\nUse pdftotext.\n\nreport.pdf page 2', personText: 'report.pdf page 2' });
    expect(await resolveSlash('/pdf', { skills })).toEqual({ kind: 'send', text: '# Reading PDFs\nUse pdftotext.', personText: '' });
    expect(await resolveSlash('/compact', { skills })).toEqual({ kind: 'compact' });
    expect(listCommands({ skills }).map((c) => `${c.source}:${c.name}`)).toEqual(['built-in:compact', 'built-in:model', 'built-in:mode', 'built-in:clear', 'built-in:goal', 'skill:pdf']);
  });

  it('/goal takes the objective (SPEC §21), and refuses none', async () => {
    expect(await resolveSlash('/goal make the parser tests pass', {})).toEqual({ kind: 'goal', objective: 'make the parser tests pass' });
    await expect(resolveSlash('/goal', {})).rejects.toThrow(/needs the objective/);
  });

  it("a plugin's command answers to its own name when that is unambiguous; a full name wins; two plugins' are named", async () => {
    const command = (name: string, plugin?: string): CustomCommand => ({ name, ...(plugin ? { plugin } : {}), description: `the ${name} command`, source: plugin ? 'plugin' : 'user', file: `/x/${name}.md`, body: `Do ${name} $ARGUMENTS` });
    const one = { commands: () => [command('release-kit:changelog', 'release-kit'), command('release-kit:notes:draft', 'release-kit')] };
    expect(await resolveSlash('/changelog v2', one)).toMatchObject({ kind: 'send', text: 'Do release-kit:changelog v2', personText: 'v2' });
    expect(await resolveSlash('/release-kit:changelog v2', one)).toMatchObject({ text: 'Do release-kit:changelog v2' });
    expect(await resolveSlash('/notes:draft', one)).toMatchObject({ text: 'Do release-kit:notes:draft' });
    expect(listCommands(one).filter((c) => c.source === 'command').map((c) => [c.name, c.shortName])).toEqual([
      ['release-kit:changelog', 'changelog'],
      ['release-kit:notes:draft', 'notes:draft'],
    ]);
    // The person's own `changelog` is that name's command; the plugin's stays reachable by its full name.
    const mine = { commands: () => [command('changelog'), command('release-kit:changelog', 'release-kit')] };
    expect(await resolveSlash('/changelog', mine)).toMatchObject({ text: 'Do changelog' });
    expect(await resolveSlash('/release-kit:changelog', mine)).toMatchObject({ text: 'Do release-kit:changelog' });
    // A skill of that name wins too.
    expect(await resolveSlash('/changelog', { ...one, skills: () => [skill('changelog', 'The skill')] })).toMatchObject({ text: 'The skill' });
    const two = { commands: () => [command('release-kit:changelog', 'release-kit'), command('docs:changelog', 'docs')] };
    await expect(resolveSlash('/changelog', two)).rejects.toEqual(new SlashCommandError('/changelog is a command of more than one plugin: use /release-kit:changelog or /docs:changelog'));
    expect(await resolveSlash('/docs:changelog', two)).toMatchObject({ text: 'Do docs:changelog' });
    // A sub-folder's command has no short name: `frontend:component` is its name.
    await expect(resolveSlash('/component', { commands: () => [command('frontend:component')] })).rejects.toThrow('unknown command /component');
  });

  it('an MCP prompt sends what it returns; its arguments by name or in order', async () => {
    const mcp = hubWith([review]);
    expect(await resolveSlash('/mcp__gh__review 42 "security"', { mcp })).toEqual({ kind: 'send', text: 'Review PR 42 for security', personText: '' });
    expect(mcp.calls).toEqual(['mcp__gh__review {"pr":"42","focus":"security"}']);
    expect(listCommands({ mcp }).at(-1)).toEqual({ name: 'mcp__gh__review', source: 'mcp', description: 'The review prompt of MCP server gh', usage: '/mcp__gh__review <pr> [focus]' });
  });

  it('fills prompt arguments by name and in order, the last taking the rest; names what is missing', () => {
    expect(promptArguments(review, ['42'])).toEqual({ pr: '42' });
    expect(promptArguments(review, ['42', 'error', 'handling'])).toEqual({ pr: '42', focus: 'error handling' });
    expect(promptArguments(review, ['focus=tests', '7'])).toEqual({ focus: 'tests', pr: '7' });
    expect(() => promptArguments(review, [])).toThrow(/needs pr: \/mcp__gh__review <pr> \[focus\]/);
    expect(() => promptArguments({ ...review, arguments: [] }, ['x'])).toThrow(/takes no more arguments/);
  });

  it('keeps quoted words whole', () => {
    expect(splitWords(`a "b c" 'd e' f\\ g "h \\"i\\""`)).toEqual(['a', 'b c', 'd e', 'f\\', 'g', 'h "i"']);
  });
});
