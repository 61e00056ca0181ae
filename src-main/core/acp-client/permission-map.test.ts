// Each agent's permission request as Deepdesk's operation (SPEC §22), in the shapes measured
// from the real adapters (../shared/acp-agents-offline.md), and the answers the rules give.
import { describe, expect, it } from 'vitest';
import { DEFAULT_RULES } from '../agent/permissions/rules';
import { decideByRules, operationOfRequest, permissionAnswer } from './permission-map';

const folder = '/work/project';

describe('permission requests as operations', () => {
  it("Claude Code: no kind in the request, the earlier tool_call's kind and locations", () => {
    const op = operationOfRequest({ kind: 'edit', title: 'Write /work/project/a.ts', locations: [{ path: '/work/project/a.ts' }], rawInput: { file_path: '/work/project/a.ts', content: 'x' } }, folder);
    expect(op).toMatchObject({ tool: 'edit_file', paths: ['/a.ts'], outside: [] });
  });

  it('Codex: an argv in rawInput; `bash -lc SCRIPT` is the script', () => {
    expect(operationOfRequest({ kind: 'execute', title: 'x', rawInput: { command: ['bash', '-lc', 'npm test && rm -rf build'] } }, folder).command).toBe('npm test && rm -rf build');
    expect(operationOfRequest({ kind: 'execute', title: 'x', rawInput: { command: ['git', 'commit', '-m', 'a b'] } }, folder).command).toBe("git commit -m 'a b'");
  });

  it('Gemini CLI: the command is the title, no rawInput', () => {
    expect(operationOfRequest({ kind: 'execute', title: 'ls -la' }, folder)).toMatchObject({ tool: 'execute', command: 'ls -la' });
  });

  it('paths outside the folder are kept apart and ask', () => {
    const op = operationOfRequest({ kind: 'edit', locations: [{ path: '/etc/passwd' }] }, folder);
    expect(op).toMatchObject({ paths: [], outside: ['/etc/passwd'] });
    expect(decideByRules(op, DEFAULT_RULES).answer).toBe('ask');
  });

  it('deny rules and protected paths answer no; allow rules yes; the rest asks', () => {
    const write = (path: string) => operationOfRequest({ kind: 'edit', locations: [{ path: `${folder}${path}` }] }, folder);
    expect(decideByRules(write('/.git/config'), DEFAULT_RULES).answer).toBe('deny');
    expect(decideByRules(write('/.env'), DEFAULT_RULES).answer).toBe('deny');
    expect(decideByRules(write('/src/a.ts'), DEFAULT_RULES).answer).toBe('ask');
    expect(decideByRules(write('/src/a.ts'), [{ operations: ['edit'], paths: ['/src/**'], decision: 'deny' }, ...DEFAULT_RULES]).answer).toBe('deny');
    expect(decideByRules(write('/src/a.ts'), [{ operations: ['edit'], paths: ['/src/**'], decision: 'allow' }, ...DEFAULT_RULES]).answer).toBe('allow');
    const run = operationOfRequest({ kind: 'execute', title: 'rm -rf /' }, folder);
    expect(decideByRules(run, [{ commands: ['rm *'], decision: 'deny' }, ...DEFAULT_RULES]).answer).toBe('deny');
    expect(decideByRules(run, DEFAULT_RULES).answer).toBe('ask');
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
