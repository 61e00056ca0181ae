// Each agent's permission request as Deepdesk's operation (SPEC §22), in the shapes measured
// from the real adapters (../shared/acp-agents-offline.md), and the answers the one decision
// point gives it with the thread's mode and rules.
import { describe, expect, it } from 'vitest';
import { decide } from '../agent/decision';
import type { ApprovalMode } from '../agent/permissions/modes';
import { DEFAULT_RULES, type PermissionRule } from '../agent/permissions/rules';
import { commandLine, operationOfRequest, permissionAnswer, type AgentOperation, type RequestShape } from './permission-map';

const folder = '/work/project';

/** A shape that reads `rawInput` as Claude Code's and Codex's requests have it (the vendors' own modules are app/agents/vendors). */
const rawInputShape: RequestShape = (call) => {
  const input = (call.rawInput ?? {}) as { command?: unknown; file_path?: unknown };
  const paths = [...(call.locations ?? []).map((l) => l.path), ...(typeof input.file_path === 'string' ? [input.file_path] : [])];
  if (call.kind !== 'execute') return { paths };
  return { paths, command: Array.isArray(input.command) ? commandLine(input.command as string[]) : typeof input.command === 'string' ? input.command : (call.title ?? '') };
};

/** The decision for an agent's operation, as the ACP client asks for it. */
async function decided(op: AgentOperation, rules: readonly PermissionRule[] = DEFAULT_RULES, mode: ApprovalMode = 'ask'): Promise<string> {
  const d = await decide({ id: 'c1', tool: op.tool, args: op.args, outside: op.tool === 'execute' ? [] : op.outside }, { threadId: 't', mode, rules, sandboxAvailable: true, agent: 'Scripted' });
  return d.decision;
}

describe('permission requests as operations', () => {
  it("Claude Code: no kind in the request, the earlier tool_call's kind and locations", () => {
    const op = operationOfRequest({ kind: 'edit', title: 'Write /work/project/a.ts', locations: [{ path: '/work/project/a.ts' }], rawInput: { file_path: '/work/project/a.ts', content: 'x' } }, folder, rawInputShape);
    expect(op).toMatchObject({ tool: 'edit_file', paths: ['/a.ts'], outside: [] });
  });

  it('Codex: an argv in rawInput, as its module reads it; `bash -lc SCRIPT` is the script', () => {
    expect(operationOfRequest({ kind: 'execute', title: 'x', rawInput: { command: ['bash', '-lc', 'npm test && rm -rf build'] } }, folder, rawInputShape).command).toBe('npm test && rm -rf build');
    expect(operationOfRequest({ kind: 'execute', title: 'x', rawInput: { command: ['git', 'commit', '-m', 'a b'] } }, folder, rawInputShape).command).toBe("git commit -m 'a b'");
    // The protocol's own fields alone: the title.
    expect(operationOfRequest({ kind: 'execute', title: 'x', rawInput: { command: ['ls'] } }, folder).command).toBe('x');
  });

  it('Gemini CLI: the command is the title, no rawInput', () => {
    expect(operationOfRequest({ kind: 'execute', title: 'ls -la' }, folder)).toMatchObject({ tool: 'execute', command: 'ls -la' });
  });

  it('paths outside the folder are kept apart and ask, whatever the mode', async () => {
    const op = operationOfRequest({ kind: 'edit', locations: [{ path: '/etc/passwd' }] }, folder);
    expect(op).toMatchObject({ paths: [], outside: ['/etc/passwd'] });
    expect(await decided(op)).toBe('ask');
    expect(await decided(op, DEFAULT_RULES, 'edit')).toBe('ask');
    expect(await decided(op, DEFAULT_RULES, 'plan')).toBe('refuse');
  });

  it('deny rules and protected paths answer no; allow rules yes; the rest asks', async () => {
    const write = (path: string) => operationOfRequest({ kind: 'edit', locations: [{ path: `${folder}${path}` }] }, folder);
    expect(write('/src/a.ts').args).toEqual({ file_path: '/src/a.ts' });
    expect(await decided(write('/.git/config'))).toBe('deny');
    expect(await decided(write('/.env'))).toBe('deny');
    expect(await decided(write('/src/a.ts'))).toBe('ask');
    expect(await decided(write('/src/a.ts'), [{ operations: ['edit'], paths: ['/src/**'], decision: 'deny' }, ...DEFAULT_RULES])).toBe('deny');
    expect(await decided(write('/src/a.ts'), [{ operations: ['edit'], paths: ['/src/**'], decision: 'allow' }, ...DEFAULT_RULES])).toBe('allow');
    const run = operationOfRequest({ kind: 'execute', title: 'rm -rf /' }, folder);
    expect(await decided(run, [{ commands: ['rm *'], decision: 'deny' }, ...DEFAULT_RULES])).toBe('deny');
    expect(await decided(run)).toBe('ask');
  });

  it('the mode decides for another agent as for Deepdesk: edit runs its writes (not its protected ones), auto its commands, plan refuses', async () => {
    const write = operationOfRequest({ kind: 'edit', locations: [{ path: `${folder}/src/a.ts` }] }, folder);
    const run = operationOfRequest({ kind: 'execute', rawInput: { command: ['bash', '-lc', 'npm test'] } }, folder, rawInputShape);
    expect(await decided(write, DEFAULT_RULES, 'edit')).toBe('allow');
    expect(await decided(operationOfRequest({ kind: 'edit', locations: [{ path: `${folder}/.git/hooks/pre-commit` }] }, folder), DEFAULT_RULES, 'edit')).toBe('deny');
    expect(await decided(run, DEFAULT_RULES, 'edit')).toBe('ask');
    expect(await decided(run, DEFAULT_RULES, 'auto')).toBe('allow');
    expect(await decided(write, DEFAULT_RULES, 'plan')).toBe('refuse');
    expect(await decided(run, DEFAULT_RULES, 'plan')).toBe('refuse');
  });

  it('an argv runs as its line: `sh -c SCRIPT` is the script', () => {
    expect(commandLine(['sh', '-c', 'for i in 1 2; do echo $i; done'])).toBe('for i in 1 2; do echo $i; done');
    expect(commandLine(['echo', 'a b'])).toBe("echo 'a b'");
  });

  it('the answer is the agent\u2019s "once" option, never an "always"', () => {
    const options = [
      { optionId: 'a', name: 'Always', kind: 'allow_always' as const },
      { optionId: 'o', name: 'Once', kind: 'allow_once' as const },
      { optionId: 'r', name: 'No', kind: 'reject_once' as const },
      { optionId: 'ra', name: 'Never', kind: 'reject_always' as const },
    ];
    expect(permissionAnswer(options, true)).toEqual({ outcome: { outcome: 'selected', optionId: 'o' } });
    expect(permissionAnswer(options, false)).toEqual({ outcome: { outcome: 'selected', optionId: 'r' } });
    expect(permissionAnswer([options[0]!], true)).toEqual({ outcome: { outcome: 'cancelled' } });
  });
});
