// Hooks in the real agent loop (SPEC §11): hook scripts in temp folders writing marker
// files, the scripted model server recording what the model receives, real folders; and
// PreSkillShellCommand on a skill's shell lines the model runs after reading the skill.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, textOf, toolMessages, type Harness, type HarnessOptions } from '../../agent/agent-harness.test-support';
import { MAX_STOP_CONTINUATIONS } from '../../agent/model-turns';
import { DEFAULT_RULES } from '../../agent/permissions/rules';
import type { AgentEvent } from '../../agent/types';
import type { RecordedRequest } from '../../models/testing/scripted-server';
import { createTestHub, stdioEntry, TEST_SERVER, type TestHub } from '../mcp/hub.test-support';
import { loadHooks } from './config';
import type { HookEntry } from './types';
import { createSkillCatalog } from '../skills/discover';
import { NOOP_RUN, type Telemetry } from '../../telemetry/observer';

let h: Harness | undefined;
let t: TestHub | undefined;
const markerDirs: string[] = [];
afterEach(async () => {
  await h?.dispose();
  await t?.dispose();
  h = undefined;
  t = undefined;
  for (const dir of markerDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const markerDir = (prefix = 'deepdesk-hooks-'): string => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  markerDirs.push(dir);
  return dir;
};

/** The hooks of this hooks.json, written into `dir` as a data folder (markers go there too). */
function hooksFrom(dir: string, config: Record<string, unknown>): { hooks: HookEntry[] } {
  writeFileSync(join(dir, 'hooks.json'), JSON.stringify({ hooks: config }));
  const loaded = loadHooks({ dataDir: dir, isTrusted: () => false });
  expect(loaded.problems).toEqual([]);
  return { hooks: loaded.hooks };
}

const command = (cmd: string, timeout?: number) => ({ type: 'command', command: cmd, ...(timeout !== undefined ? { timeout } : {}) });
const results = (request: RecordedRequest): string[] => toolMessages(request).map((m) => textOf(m.content));
const write = (path: string, content: string, id?: string) => ({ name: 'write_file', args: { file_path: path, content }, ...(id ? { id } : {}) });
const ofType = <T extends AgentEvent['type']>(events: AgentEvent[], type: T) => events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);
const PLAN_ERROR = 'Error: plan mode is read-only; ask the user to switch modes to make changes';

async function harness(hooks: HookEntry[], options: HarnessOptions): Promise<Harness> {
  h = await createHarness({ ...options, hooks: () => hooks });
  return h;
}

describe('PreToolUse', () => {
  it('exit 2 refuses the call with the stderr; the hook got the event JSON on stdin and ran in the folder', async () => {
    const dir = markerDir();
    const { hooks } = hooksFrom(dir, { PreToolUse: [{ matcher: 'Write', hooks: [command(`cat > "${dir}/stdin.json"; pwd > "${dir}/cwd"; echo "no writes today" >&2; exit 2`)] }] });
    await harness(hooks, { mode: 'edit', script: [{ toolCalls: [write('/a.txt', 'x', 'call_w')] }, { text: 'ok' }] });
    await h!.run('write it');
    expect(results(h!.server.requests[1]!)).toEqual(['Error: blocked by hook: no writes today']);
    expect(existsSync(join(h!.ws.folder, 'a.txt'))).toBe(false);
    const stdin = JSON.parse(readFileSync(join(dir, 'stdin.json'), 'utf8')) as Record<string, unknown>;
    expect(stdin).toMatchObject({
      session_id: 'thread-1',
      cwd: h!.ws.folder,
      hook_event_name: 'PreToolUse',
      permission_mode: 'edit',
      // Claude Code's name for the tool, and the real path on disk.
      tool_name: 'Write',
      tool_input: { file_path: join(h!.ws.folder, 'a.txt'), content: 'x' },
      transcript_path: expect.stringMatching(/\.jsonl$/),
      tool_use_id: 'call_w',
    });
    expect(readFileSync(join(dir, 'cwd'), 'utf8').trim()).toBe(h!.ws.folder);
    // The card: denied, with the reason and the hook's command and file.
    const denied = ofType(h!.events, 'approval').find((e) => e.status === 'denied')!;
    expect(denied.reason).toBe('blocked by hook: no writes today');
    expect(denied.hook).toEqual({ command: hooks[0]!.command, file: join(dir, 'hooks.json') });
  });

  it('matchers: Claude names match Deepdesk tools, a regex matches whole names, another tool does not run the hook', async () => {
    const dir = markerDir();
    const { hooks } = hooksFrom(dir, {
      PreToolUse: [
        { matcher: 'Bash', hooks: [command(`touch "${dir}/bash"`)] },
        { matcher: 'Write|Edit', hooks: [command(`touch "${dir}/write"`)] },
        { matcher: 'write', hooks: [command(`touch "${dir}/partial"`)] },
        { hooks: [command(`touch "${dir}/any"`)] },
      ],
    });
    await harness(hooks, { script: [{ toolCalls: [write('/a.txt', 'x')] }, { text: 'ok' }] });
    await h!.run('write it');
    expect(readFileSync(join(h!.ws.folder, 'a.txt'), 'utf8')).toBe('x');
    expect(existsSync(join(dir, 'write'))).toBe(true);
    expect(existsSync(join(dir, 'any'))).toBe(true);
    expect(existsSync(join(dir, 'bash'))).toBe(false);
    expect(existsSync(join(dir, 'partial'))).toBe(false);
  });

  it('a JSON deny refuses with its reason; deny beats another hook\'s allow', async () => {
    const deny = JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'policy says no' } });
    const allow = JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow' } });
    const { hooks } = hooksFrom(markerDir(), { PreToolUse: [{ matcher: '.*', hooks: [command(`echo '${allow}'`), command(`echo '${deny}'`)] }] });
    await harness(hooks, { script: [{ toolCalls: [write('/a.txt', 'x')] }, { text: 'ok' }] });
    await h!.run('write it');
    expect(results(h!.server.requests[1]!)).toEqual(['Error: blocked by hook: policy says no']);
    expect(existsSync(join(h!.ws.folder, 'a.txt'))).toBe(false);
  });

  describe('allow spares only the default question', () => {
    const allow = JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', permissionDecisionReason: 'ok by policy' } });
    const allowing = () => hooksFrom(markerDir(), { PreToolUse: [{ hooks: [command(`echo '${allow}'`)] }] }).hooks;

    it('under the default rules a write runs without asking', async () => {
      await harness(allowing(), { rules: DEFAULT_RULES, script: [{ toolCalls: [write('/a.txt', 'x')] }, { text: 'ok' }] });
      await h!.run('write');
      expect(h!.approvals).toEqual([]);
      expect(readFileSync(join(h!.ws.folder, 'a.txt'), 'utf8')).toBe('x');
    });

    it('never over a deny rule', async () => {
      await harness(allowing(), { rules: [{ tools: ['write_file'], decision: 'deny' }, ...DEFAULT_RULES], script: [{ toolCalls: [write('/a.txt', 'x')] }, { text: 'ok' }] });
      await h!.run('write');
      expect(results(h!.server.requests[1]!)[0]).toMatch(/^Error: this write_file call is not allowed/);
      expect(existsSync(join(h!.ws.folder, 'a.txt'))).toBe(false);
    });

    it('never over a person\'s ask rule or a protected path: they still ask', async () => {
      await harness(allowing(), {
        rules: [{ tools: ['write_file'], paths: ['/asked.txt'], decision: 'ask' }, ...DEFAULT_RULES],
        script: [{ toolCalls: [write('/.env', 'A=1'), write('/asked.txt', 'x')] }, { text: 'ok' }],
      });
      await h!.run('write');
      expect(h!.approvals.map((a) => a.args.file_path).sort()).toEqual(['/.env', '/asked.txt']);
      expect(existsSync(join(h!.ws.folder, '.env'))).toBe(false);
    });

    it('never in plan mode', async () => {
      await harness(allowing(), { rules: DEFAULT_RULES, mode: 'plan', script: [{ toolCalls: [write('/a.txt', 'x')] }, { text: 'ok' }] });
      await h!.run('write');
      expect(results(h!.server.requests[1]!)).toEqual([PLAN_ERROR]);
      expect(h!.approvals).toEqual([]);
    });

    it('never for execute with sandbox: false', async () => {
      await harness(allowing(), {
        rules: DEFAULT_RULES,
        mode: 'auto',
        sandboxAvailable: true,
        script: [{ toolCalls: [{ name: 'execute', args: { command: 'echo hi > out.txt', sandbox: false, reason: 'needs the network' } }] }, { text: 'ok' }],
      });
      await h!.run('run');
      expect(h!.approvals).toHaveLength(1);
      expect(h!.approvals[0]!.outsideSandbox).toBeDefined();
      expect(existsSync(join(h!.ws.folder, 'out.txt'))).toBe(false);
    });
  });

  it('ask makes a call that the rules allow ask', async () => {
    const ask = JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'ask', permissionDecisionReason: 'check this one' } });
    const { hooks } = hooksFrom(markerDir(), { PreToolUse: [{ hooks: [command(`echo '${ask}'`)] }] });
    await harness(hooks, { decisions: [{ type: 'approve' }], script: [{ toolCalls: [write('/a.txt', 'x')] }, { text: 'ok' }] });
    await h!.run('write');
    expect(h!.approvals).toHaveLength(1);
    expect(h!.approvals[0]!.reason).toBe('a hook asks: check this one');
    expect(readFileSync(join(h!.ws.folder, 'a.txt'), 'utf8')).toBe('x');
  });

  it('with a reviewer (SPEC §23), a hook that answers ask asks the reviewer first: its deny never runs, the agent reads why, the person is not asked', async () => {
    const ask = JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'ask', permissionDecisionReason: 'check this one' } });
    const { hooks } = hooksFrom(markerDir(), { PreToolUse: [{ hooks: [command(`echo '${ask}'`)] }] });
    const reviewed: string[] = [];
    await harness(hooks, { reviewer: { decide: (prompt) => (reviewed.push(prompt), 'deny') }, script: [{ toolCalls: [write('/a.txt', 'x')] }, { text: 'ok' }] });
    await h!.run('write');
    expect(reviewed).toHaveLength(1);
    expect(reviewed[0]).toContain('a hook asks: check this one');
    expect(h!.approvals).toEqual([]);
    expect(existsSync(join(h!.ws.folder, 'a.txt'))).toBe(false);
    expect(results(h!.server.requests[1]!)).toEqual(['Error: denied by the reviewer: persistence']);
  });

  it('updatedInput is what runs, what the question shows, and the history marks it edited by hook', async () => {
    const updated = JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'ask', updatedInput: { file_path: '/a.txt', content: 'from the hook' } } });
    const { hooks } = hooksFrom(markerDir(), { PreToolUse: [{ matcher: 'Write', hooks: [command(`echo '${updated}'`)] }] });
    await harness(hooks, { decisions: [{ type: 'approve' }], script: [{ toolCalls: [write('/a.txt', 'from the model', 'call_u')] }, { text: 'ok' }] });
    await h!.run('write');
    expect(readFileSync(join(h!.ws.folder, 'a.txt'), 'utf8')).toBe('from the hook');
    expect(h!.approvals[0]!.args).toEqual({ file_path: '/a.txt', content: 'from the hook' });
    const edited = ofType(h!.events, 'approval').find((e) => e.status === 'edited')!;
    expect(edited).toMatchObject({ id: 'call_u', args: { file_path: '/a.txt', content: 'from the hook' }, hook: { command: hooks[0]!.command } });
    const stored = h!.state.messages.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []) : [])).find((c) => c.id === 'call_u')!;
    expect(stored).toMatchObject({ args: { content: 'from the hook' }, originalArgs: { content: 'from the model' }, editedBy: 'hook' });
  });

  it('hooks of one event run in parallel (each waits for the other\'s marker)', async () => {
    const dir = markerDir();
    const waitFor = (mine: string, other: string): string =>
      `touch "${dir}/${mine}"; i=0; while [ ! -e "${dir}/${other}" ]; do i=$((i+1)); [ $i -gt 100 ] && exit 1; sleep 0.05; done; exit 0`;
    const { hooks } = hooksFrom(dir, { PreToolUse: [{ hooks: [command(waitFor('a', 'b'))] }, { hooks: [command(waitFor('b', 'a'))] }] });
    await harness(hooks, { script: [{ toolCalls: [write('/a.txt', 'x')] }, { text: 'ok' }] });
    await h!.run('write');
    expect(ofType(h!.events, 'hook')).toEqual([]);
    expect(readFileSync(join(h!.ws.folder, 'a.txt'), 'utf8')).toBe('x');
  });

  it('another exit code: the person sees the error, the call runs', async () => {
    const { hooks } = hooksFrom(markerDir(), { PreToolUse: [{ hooks: [command('echo "broken script" >&2; exit 1')] }] });
    await harness(hooks, { script: [{ toolCalls: [write('/a.txt', 'x')] }, { text: 'ok' }] });
    await h!.run('write');
    expect(readFileSync(join(h!.ws.folder, 'a.txt'), 'utf8')).toBe('x');
    const errors = ofType(h!.events, 'hook');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ event: 'PreToolUse', outcome: 'error', message: 'PreToolUse hook exited with code 1: broken script' });
  });

  it('applies to a subagent\'s calls', async () => {
    const dir = markerDir();
    const { hooks } = hooksFrom(dir, { PreToolUse: [{ matcher: 'Write', hooks: [command(`cat > "${dir}/stdin.json"; echo "not from subagents" >&2; exit 2`)] }] });
    await harness(hooks, {
      script: [
        { toolCalls: [{ name: 'task', args: { description: 'write /sub.txt', subagent_type: 'general-purpose' } }] },
        { toolCalls: [write('/sub.txt', 'x')] },
        (req) => ({ text: `sub saw: ${results(req).join('')}` }),
        { text: 'done' },
      ],
    });
    await h!.run('delegate');
    expect(existsSync(join(h!.ws.folder, 'sub.txt'))).toBe(false);
    expect(results(h!.server.requests[2]!)).toEqual(['Error: blocked by hook: not from subagents']);
    expect(JSON.parse(readFileSync(join(dir, 'stdin.json'), 'utf8'))).toMatchObject({ session_id: 'thread-1', tool_name: 'Write' });
  });

  it('applies to MCP tools by their mcp__server__tool name', async () => {
    const dir = markerDir();
    const { hooks } = hooksFrom(dir, { PreToolUse: [{ matcher: 'mcp__test__.*', hooks: [command(`cat > "${dir}/stdin.json"; echo "no MCP" >&2; exit 2`)] }] });
    t = createTestHub();
    await t.hub.configure([stdioEntry('test', [TEST_SERVER])], []);
    await harness(hooks, { mcp: t.hub, script: [{ toolCalls: [{ name: 'mcp__test__peek', args: {} }] }, { text: 'done' }] });
    await h!.run('peek');
    expect(results(h!.server.requests[1]!)).toEqual(['Error: blocked by hook: no MCP']);
    expect(JSON.parse(readFileSync(join(dir, 'stdin.json'), 'utf8'))).toMatchObject({ tool_name: 'mcp__test__peek' });
  });

  it('a timeout ends the whole process tree; the person sees that it timed out; nothing is blocked', async () => {
    const dir = markerDir();
    const { hooks } = hooksFrom(dir, { PreToolUse: [{ hooks: [command(`sleep 300 & echo $! > "${dir}/child.pid"; wait`, 1)] }] });
    await harness(hooks, { script: [{ toolCalls: [write('/a.txt', 'x')] }, { text: 'ok' }] });
    await h!.run('write');
    const pid = Number(readFileSync(join(dir, 'child.pid'), 'utf8'));
    await expect.poll(() => alive(pid), { timeout: 60_000 }).toBe(false);
    expect(ofType(h!.events, 'hook')[0]).toMatchObject({ outcome: 'error', message: 'PreToolUse hook timed out after 1 s and was stopped' });
    expect(readFileSync(join(h!.ws.folder, 'a.txt'), 'utf8')).toBe('x');
  }, 20_000);

  it('Stop ends a running hook\'s tree', async () => {
    const dir = markerDir();
    const { hooks } = hooksFrom(dir, { PreToolUse: [{ hooks: [command(`sleep 300 & echo $! > "${dir}/child.pid"; wait`)] }] });
    await harness(hooks, { script: [{ toolCalls: [write('/a.txt', 'x')] }, { text: 'ok' }] });
    const stop = new AbortController();
    const run = h!.run('write', stop.signal);
    await expect.poll(() => existsSync(join(dir, 'child.pid')) && readFileSync(join(dir, 'child.pid'), 'utf8').trim() !== '').toBe(true);
    const pid = Number(readFileSync(join(dir, 'child.pid'), 'utf8'));
    stop.abort();
    expect((await run).reason).toBe('aborted');
    await expect.poll(() => alive(pid), { timeout: 60_000 }).toBe(false);
  }, 20_000);

  it('the hook runs without the app\'s secrets, with CLAUDE_PROJECT_DIR naming the folder', async () => {
    const dir = markerDir();
    const { hooks } = hooksFrom(dir, { PreToolUse: [{ hooks: [command(`env > "${dir}/env"`)] }] });
    h = await createHarness({
      hooks: () => hooks,
      hookEnv: { ...process.env, OPENAI_API_KEY: 'sk-very-secret-1', ANTHROPIC_API_KEY: 'sk-ant-very-secret-2', DEEPDESK_TOKEN: 'deepdesk-secret-3' },
      script: [{ toolCalls: [write('/a.txt', 'x')] }, { text: 'ok' }],
    });
    await h.run('write');
    const env = readFileSync(join(dir, 'env'), 'utf8');
    expect(env).not.toContain('very-secret');
    expect(env).not.toContain('deepdesk-secret');
    expect(env).toContain(`CLAUDE_PROJECT_DIR=${h.ws.folder}\n`);
  });
});

describe('PostToolUse', () => {
  it('additionalContext and a block reason are appended to the result the model sees; it gets the tool response', async () => {
    const context = JSON.stringify({ hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'lint: 2 warnings' } });
    const block = JSON.stringify({ decision: 'block', reason: 'the file has a TODO' });
    const dir = markerDir();
    const { hooks } = hooksFrom(dir, {
      PostToolUse: [{ matcher: 'Write', hooks: [command(`cat > "${dir}/stdin.json"; echo '${context}'`), command(`echo '${block}'`)] }],
    });
    await harness(hooks, { script: [{ toolCalls: [write('/a.txt', 'x')] }, { text: 'ok' }] });
    await h!.run('write');
    const [result] = results(h!.server.requests[1]!);
    expect(result).toContain('A PostToolUse hook flagged this result: the file has a TODO');
    expect(result).toContain('Context from a PostToolUse hook:\nlint: 2 warnings');
    const stdin = JSON.parse(readFileSync(join(dir, 'stdin.json'), 'utf8')) as Record<string, unknown>;
    // Claude Code's Write response.
    expect(stdin).toMatchObject({ hook_event_name: 'PostToolUse', tool_name: 'Write', tool_response: { filePath: join(h!.ws.folder, 'a.txt'), success: true } });
    expect(result!.startsWith('Updated file /a.txt\n\n')).toBe(true);
  });

  it('does not run for a call that did not run (rejected by the person)', async () => {
    const dir = markerDir();
    const { hooks } = hooksFrom(dir, { PostToolUse: [{ hooks: [command(`touch "${dir}/post"`)] }] });
    await harness(hooks, { rules: DEFAULT_RULES, decisions: [{ type: 'reject' }], script: [{ toolCalls: [write('/a.txt', 'x')] }, { text: 'ok' }] });
    await h!.run('write');
    expect(h!.approvals).toHaveLength(1);
    expect(existsSync(join(dir, 'post'))).toBe(false);
  });
});

describe('UserPromptSubmit and SessionStart', () => {
  it('exit 2: the prompt is not sent (no model call, not in the history) and the person is told why', async () => {
    const dir = markerDir();
    const { hooks } = hooksFrom(dir, { UserPromptSubmit: [{ hooks: [command(`cat > "${dir}/stdin.json"; echo "no secrets in prompts" >&2; exit 2`)] }] });
    await harness(hooks, { script: [{ text: 'never' }] });
    const result = await h!.run('my password is hunter2');
    expect(result.reason).toBe('error');
    expect(h!.server.requests).toHaveLength(0);
    expect(h!.state.messages).toEqual([]);
    expect(ofType(h!.events, 'error')[0]!.message).toBe('Your message was not sent: a UserPromptSubmit hook blocked it: no secrets in prompts');
    expect(ofType(h!.events, 'hook')[0]).toMatchObject({ event: 'UserPromptSubmit', outcome: 'blocked' });
    expect(JSON.parse(readFileSync(join(dir, 'stdin.json'), 'utf8'))).toMatchObject({ hook_event_name: 'UserPromptSubmit', prompt: 'my password is hunter2' });
  });

  it('context from SessionStart (first run only) and UserPromptSubmit (each prompt) reaches the model', async () => {
    const dir = markerDir();
    const { hooks } = hooksFrom(dir, {
      SessionStart: [{ hooks: [command(`echo started >> "${dir}/sessions"; echo "branch: main"`)] }],
      UserPromptSubmit: [{ hooks: [command(`echo '${JSON.stringify({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: 'today is a holiday' } })}'`)] }],
    });
    await harness(hooks, { script: [{ text: 'one' }, { text: 'two' }] });
    await h!.run('first');
    await h!.run('second');
    expect(readFileSync(join(dir, 'sessions'), 'utf8')).toBe('started\n');
    const first = JSON.stringify(h!.server.requests[0]!.messages);
    expect(first).toContain('branch: main');
    expect(first).toContain('today is a holiday');
    const second = h!.server.requests[1]!.messages.map((m) => textOf(m.content));
    expect(second.filter((m) => m.includes('today is a holiday'))).toHaveLength(2);
    expect(second.filter((m) => m.includes('branch: main'))).toHaveLength(1);
  });
});

describe('Stop', () => {
  it('exit 2 makes the agent go on with the stderr as its next instruction', async () => {
    const dir = markerDir();
    const { hooks } = hooksFrom(dir, { Stop: [{ hooks: [command(`if [ -e "${dir}/once" ]; then exit 0; fi; touch "${dir}/once"; echo "run the tests first" >&2; exit 2`)] }] });
    await harness(hooks, { script: [{ text: 'done?' }, { text: 'tests pass' }] });
    const result = await h!.run('fix it');
    expect(result.text).toBe('tests pass');
    expect(h!.server.requests).toHaveLength(2);
    expect(textOf(h!.server.requests[1]!.messages.at(-1)!.content)).toBe('run the tests first');
    expect(ofType(h!.events, 'note')[0]!.text).toContain('run the tests first');
  });

  it(`the loop ends after ${MAX_STOP_CONTINUATIONS} in a row; stop_hook_active tells the hook`, async () => {
    const dir = markerDir();
    const { hooks } = hooksFrom(dir, { Stop: [{ hooks: [command(`cat >> "${dir}/stdin"; echo >> "${dir}/stdin"; echo "keep going" >&2; exit 2`)] }] });
    await harness(hooks, { script: Array.from({ length: 12 }, (_, i) => ({ text: `answer ${i}` })) });
    const result = await h!.run('go');
    expect(result.reason).toBe('completed');
    expect(h!.server.requests).toHaveLength(MAX_STOP_CONTINUATIONS + 1);
    const inputs = readFileSync(join(dir, 'stdin'), 'utf8').split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as { stop_hook_active: boolean });
    expect(inputs).toHaveLength(MAX_STOP_CONTINUATIONS);
    expect(inputs.map((i) => i.stop_hook_active)).toEqual([false, ...Array.from({ length: MAX_STOP_CONTINUATIONS - 1 }, () => true)]);
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("scripts written for Claude Code decide the same way here", () => {
  const script = (dir: string, name: string, body: string): string => {
    const path = join(dir, name);
    writeFileSync(path, body, { mode: 0o755 });
    return path;
  };

  it('a guard on tool_name == "Bash" and tool_input.command blocks a direct push to main, and lets another command run', async () => {
    const dir = markerDir();
    const guard = script(
      dir,
      'no-push-main.py',
      `#!/usr/bin/env python3
import json, sys
data = json.load(sys.stdin)
if data.get("tool_name") == "Bash" and "git push origin main" in data.get("tool_input", {}).get("command", ""):
    print("Direct push to main is not allowed", file=sys.stderr)
    sys.exit(2)
sys.exit(0)
`,
    );
    const { hooks } = hooksFrom(dir, { PreToolUse: [{ matcher: 'Bash', hooks: [command(`python3 ${guard}`)] }] });
    await harness(hooks, {
      mode: 'auto',
      sandboxAvailable: false,
      script: [{ toolCalls: [{ name: 'execute', args: { command: `git push origin main; touch ${dir}/pushed` } }] }, { toolCalls: [{ name: 'execute', args: { command: `touch ${dir}/other` } }] }, { text: 'ok' }],
    });
    await h!.run('push');
    expect(results(h!.server.requests[1]!)).toEqual(['Error: blocked by hook: Direct push to main is not allowed']);
    expect(existsSync(join(dir, 'pushed'))).toBe(false);
    expect(existsSync(join(dir, 'other'))).toBe(true);
  });

  it("a handler's `if` limits it to the calls it matches: an .env guard blocks the .env write only", async () => {
    const dir = markerDir();
    const { hooks } = hooksFrom(dir, { PreToolUse: [{ matcher: 'Write|Edit', hooks: [{ ...command('echo "no .env writes" >&2; exit 2'), if: 'Write(*.env)' }] }] });
    await harness(hooks, { mode: 'auto', script: [{ toolCalls: [write('/config/.env', 'SECRET=1'), write('/app.ts', 'x')] }, { text: 'ok' }], rules: DEFAULT_RULES });
    await h!.run('write both');
    const [envResult, appResult] = results(h!.server.requests[1]!);
    expect(envResult).toMatch(/^Error: /);
    expect(appResult).toBe('Updated file /app.ts');
    expect(existsSync(join(h!.ws.folder, 'app.ts'))).toBe(true);
  });

  it("a Stop hook that reads transcript_path's last assistant message decides from it (a continue-until-done loop)", async () => {
    const dir = markerDir();
    const loop = script(
      dir,
      'stop-loop.py',
      `#!/usr/bin/env python3
import json, sys
data = json.load(sys.stdin)
last = ""
with open(data["transcript_path"]) as f:
    for line in f:
        entry = json.loads(line)
        if entry.get("type") == "assistant":
            for block in entry["message"]["content"]:
                if block.get("type") == "text":
                    last = block["text"]
if "DONE" not in last:
    print("Keep going until you can say DONE", file=sys.stderr)
    sys.exit(2)
`,
    );
    const { hooks } = hooksFrom(dir, { Stop: [{ hooks: [command(`python3 ${loop}`)] }] });
    await harness(hooks, { script: [{ text: 'halfway' }, { text: 'now DONE' }] });
    const result = await h!.run('work');
    expect(result.text).toBe('now DONE');
    expect(h!.server.requests).toHaveLength(2);
    expect(JSON.stringify(h!.server.requests[1]!.messages)).toContain('Keep going until you can say DONE');
  });

  it("SessionStart's top-level additionalContext reaches the model; SubagentStart/SubagentStop and PostToolUseFailure are sent", async () => {
    const dir = markerDir();
    const { hooks } = hooksFrom(dir, {
      SessionStart: [{ hooks: [command(`echo '{"additionalContext": "The build is broken since Monday."}'`)] }],
      SubagentStart: [{ hooks: [command(`cat >> "${dir}/events.jsonl"`)] }],
      SubagentStop: [{ hooks: [command(`cat >> "${dir}/events.jsonl"`)] }],
      PostToolUseFailure: [{ matcher: 'Read', hooks: [command(`cat >> "${dir}/events.jsonl"`)] }],
    });
    await harness(hooks, {
      script: [
        { toolCalls: [{ name: 'read_file', args: { file_path: '/missing.txt' } }] },
        { toolCalls: [{ name: 'task', args: { description: 'look around', subagent_type: 'general-purpose' } }] },
        { text: 'sub done' },
        { text: 'all done' },
      ],
    });
    await h!.run('start');
    expect(JSON.stringify(h!.server.requests[0]!.messages)).toContain('The build is broken since Monday.');
    const events = readFileSync(join(dir, 'events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events.map((e) => e.hook_event_name)).toEqual(['PostToolUseFailure', 'SubagentStart', 'SubagentStop']);
    expect(events[0]).toMatchObject({ tool_name: 'Read', tool_input: { file_path: join(h!.ws.folder, 'missing.txt') }, error: expect.stringMatching(/^Error: /) });
    expect(events[1]!.agent_id).toEqual(expect.any(String));
  });
});

describe('PreSkillShellCommand', () => {
  it("fires before each shell line of a skill the model invoked (read): its block keeps the line from running, its approve lets it, invoked_by is model, and the decision is recorded", async () => {
    const dir = markerDir();
    const home = markerDir('deepdesk-skill-home-');
    const skillDir = join(home, '.agents', 'skills', 'mkfiles');
    mkdirSync(skillDir, { recursive: true });
    writeFileSync(join(skillDir, 'SKILL.md'), '---\nname: mkfiles\ndescription: Makes the files.\n---\nFirst:\n!`touch blocked.txt`\n!`touch allowed.txt`\n');
    const catalog = createSkillCatalog({ dataDir: dir, home, isTrusted: () => false });
    // Exit 2 blocks a line naming blocked.txt; the others are approved in Claude Code's JSON.
    const { hooks } = hooksFrom(dir, {
      PreSkillShellCommand: [
        { matcher: 'mkfiles', hooks: [command(`input=$(cat); printf '%s\\n' "$input" >> "${dir}/stdin.jsonl"; case "$input" in *blocked.txt*) echo "no blocked files" >&2; exit 2;; esac; echo '{"decision": "approve"}'`)] },
      ],
    });
    const decided: { id: string; decision: string; by: string }[] = [];
    const telemetry: Telemetry = { turn: () => ({ ...NOOP_RUN, toolCall: (info) => ({ decided: (decision, by) => decided.push({ id: info.id, decision, by }), traceparent: () => undefined, subagent: () => NOOP_RUN, end() {} }) }) };
    const execute = (cmd: string, id: string) => ({ name: 'execute', args: { command: cmd }, id });
    await harness(hooks, {
      mode: 'ask',
      rules: [],
      skills: () => catalog.current().skills,
      // Allowed by the hook's approve, nothing is asked; a line run before the skill was read is no skill's line.
      decisions: [{ type: 'approve' }],
      script: [
        { toolCalls: [execute('touch early.txt', 'c0')] },
        { toolCalls: [{ name: 'read_file', args: { file_path: '/skills/mkfiles/SKILL.md' }, id: 'c1' }] },
        { toolCalls: [execute('touch blocked.txt', 'c2'), execute('touch allowed.txt', 'c3')] },
        { text: 'done' },
      ],
    });
    await h!.run('make the files', undefined, { telemetry });
    expect(existsSync(join(h!.ws.folder, 'blocked.txt'))).toBe(false);
    expect(existsSync(join(h!.ws.folder, 'allowed.txt'))).toBe(true);
    expect(existsSync(join(h!.ws.folder, 'early.txt'))).toBe(true);
    expect(results(h!.server.requests[3]!).slice(-2)).toEqual(['Error: blocked by hook: no blocked files', expect.not.stringMatching(/^Error/)]);
    // The two calls may run at once: their hooks' lines come in either order.
    const inputs = readFileSync(join(dir, 'stdin.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .sort((x, y) => String(y.command).localeCompare(String(x.command)));
    expect(inputs).toHaveLength(2);
    expect(inputs[0]).toMatchObject({ session_id: 'thread-1', cwd: h!.ws.folder, hook_event_name: 'PreSkillShellCommand', skill_name: 'mkfiles', command: 'touch blocked.txt', invoked_by: 'model', permission_mode: 'ask' });
    expect(inputs[1]).toMatchObject({ hook_event_name: 'PreSkillShellCommand', skill_name: 'mkfiles', command: 'touch allowed.txt', invoked_by: 'model' });
    // Recorded as a hook's decisions: the refusal's card and the hook event, and decided-by for the audit.
    expect(ofType(h!.events, 'approval').find((e) => e.id === 'c2')).toMatchObject({ status: 'denied', reason: 'blocked by hook: no blocked files', hook: { command: hooks[0]!.command, file: join(dir, 'hooks.json') } });
    expect(ofType(h!.events, 'hook').find((e) => e.toolCallId === 'c2')).toMatchObject({ event: 'PreSkillShellCommand', outcome: 'blocked' });
    // The two calls may be decided at once: compared in id order.
    expect(decided.filter((d) => d.id === 'c2' || d.id === 'c3').sort((x, y) => x.id.localeCompare(y.id))).toEqual([
      { id: 'c2', decision: 'deny', by: 'hook' },
      { id: 'c3', decision: 'allow', by: 'hook' },
    ]);
    // The line run before the skill was read asked (rules: none), no hook decided it.
    expect(h!.approvals.map((a) => a.args)).toEqual([{ command: 'touch early.txt' }]);
  });

  it("hookSpecificOutput.permissionDecision deny refuses the line; a hook whose matcher names another skill is not asked", async () => {
    const dir = markerDir();
    const home = markerDir('deepdesk-skill-home-');
    const skillDir = join(home, '.agents', 'skills', 'cleanup');
    mkdirSync(skillDir, { recursive: true });
    writeFileSync(join(skillDir, 'SKILL.md'), '---\nname: cleanup\ndescription: Cleans up.\n---\n!`touch cleaned.txt`\n');
    const catalog = createSkillCatalog({ dataDir: dir, home, isTrusted: () => false });
    const deny = JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreSkillShellCommand', permissionDecision: 'deny', permissionDecisionReason: 'no cleaning' } });
    const { hooks } = hooksFrom(dir, {
      PreSkillShellCommand: [
        { matcher: 'clean.*', hooks: [command(`cat > /dev/null; echo '${deny}'`)] },
        { matcher: 'other', hooks: [command(`cat > /dev/null; touch "${dir}/other-ran"`)] },
      ],
    });
    await harness(hooks, {
      skills: () => catalog.current().skills,
      script: [
        { toolCalls: [{ name: 'read_file', args: { file_path: '/skills/cleanup/SKILL.md' }, id: 'r' }] },
        { toolCalls: [{ name: 'execute', args: { command: 'touch cleaned.txt' }, id: 'x' }] },
        { text: 'done' },
      ],
    });
    await h!.run('clean up');
    expect(existsSync(join(h!.ws.folder, 'cleaned.txt'))).toBe(false);
    expect(results(h!.server.requests[2]!).at(-1)).toBe('Error: blocked by hook: no cleaning');
    expect(existsSync(join(dir, 'other-ran'))).toBe(false);
  });

  it("with a reviewer (SPEC §23), a skill's shell line its hook answers ask about goes to the reviewer, as every line that asks: its deny never runs it", async () => {
    const dir = markerDir();
    const home = markerDir('deepdesk-skill-home-');
    const skillDir = join(home, '.agents', 'skills', 'cleanup');
    mkdirSync(skillDir, { recursive: true });
    writeFileSync(join(skillDir, 'SKILL.md'), '---\nname: cleanup\ndescription: Cleans up.\n---\n!`touch cleaned.txt`\n');
    const catalog = createSkillCatalog({ dataDir: dir, home, isTrusted: () => false });
    const ask = JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreSkillShellCommand', permissionDecision: 'ask', permissionDecisionReason: 'a cleaning' } });
    const { hooks } = hooksFrom(dir, { PreSkillShellCommand: [{ matcher: 'cleanup', hooks: [command(`cat > /dev/null; echo '${ask}'`)] }] });
    const reviewed: string[] = [];
    await harness(hooks, {
      mode: 'auto',
      sandboxAvailable: true,
      skills: () => catalog.current().skills,
      reviewer: { decide: (prompt) => (reviewed.push(prompt), 'deny') },
      script: [
        { toolCalls: [{ name: 'read_file', args: { file_path: '/skills/cleanup/SKILL.md' }, id: 'r' }] },
        { toolCalls: [{ name: 'execute', args: { command: 'touch cleaned.txt' }, id: 'x' }] },
        { text: 'done' },
      ],
    });
    await h!.run('clean up');
    expect(reviewed).toHaveLength(1);
    expect(reviewed[0]).toContain('touch cleaned.txt');
    expect(h!.approvals).toEqual([]);
    expect(existsSync(join(h!.ws.folder, 'cleaned.txt'))).toBe(false);
    expect(results(h!.server.requests[2]!).at(-1)).toBe('Error: denied by the reviewer: persistence');
  });
});
