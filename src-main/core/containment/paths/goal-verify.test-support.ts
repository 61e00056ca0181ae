// A goal's verify step as an execution path (SPEC §21: the host runs it itself, on the thread's
// own command path): a real agent run whose thread pursues a goal with the case's script as its
// one verify step. Its model only says it is done, so the gate runs the step through
// runHostCommand — the agent's execute, under its rules and mode (`auto` here, nothing asks), in
// the sandbox the app makes for the folder. The run stops once the step's result is out (the
// grader is not the case's), or at the case's time limit. The script goes gzipped and
// base64-encoded into one word of the step's command (a step is at most 4,000 characters).
import { gzipSync } from 'node:zlib';
import { LocalShellBackend } from '../../backends/filesystem/local-shell';
import { createAgentDefinition } from '../../agent/create-agent';
import { AGENT_CONFIG } from '../../agent/permissions/agent-config.test-support';
import { runAgent } from '../../agent/loop';
import { DEFAULT_RULES } from '../../agent/permissions/rules';
import { newThreadState } from '../../agent/types';
import { givenDraft } from '../../goals/draft';
import { startGoal } from '../../goals/goal';
import { ZERO_USAGE, type ChatModel } from '../../models/types';
import { createSandbox } from '../../sandbox/index';
import { folderSandboxPolicy } from '../../sandbox/protected-entry-files';
import type { Sandbox } from '../../sandbox/types';
import { ReadGuard } from '../../tools/read-guard';
import { localPerson } from '../person';
import type { ExecutionPath, Scene } from '../types';
import { deferredPerson, withReady } from './deferred-person';

/** A model that says the work is done, whatever it is asked. */
const DONE: ChatModel = {
  id: 'openai-compatible:says-done',
  provider: 'openai-compatible',
  contextWindow: 100_000,
  price: null,
  async *stream() {
    yield { type: 'text-delta', text: 'Done.' };
    yield { type: 'finish', stopReason: 'stop', usage: ZERO_USAGE };
  },
};

export function goalVerifyPath(): ExecutionPath {
  const person = deferredPerson();
  const sandboxes = new WeakMap<Scene, Sandbox>();
  return {
    name: 'goal verify step (runHostCommand)',
    notApplicable: {
      'trusted-script': 'a verify step runs no configuration entry (the hook path’s neighbour is a command)',
    },
    person,
    async setUp(env) {
      person.set(localPerson(env));
    },
    async tearDown() {},
    async run(scene, script, { timeoutS }) {
      let sandbox = sandboxes.get(scene);
      if (!sandbox) {
        sandbox = await createSandbox(folderSandboxPolicy({ projectDir: scene.project, dataDir: scene.dataDir }, scene.home));
        if (!sandbox) throw new Error('no sandbox on this machine: the verify step path cannot be tested');
        sandboxes.set(scene, sandbox);
      }
      const backend = new LocalShellBackend({ rootDir: scene.project, sandbox });
      const definition = createAgentDefinition({
        model: DONE,
        backend,
        rules: () => DEFAULT_RULES,
        agentConfig: AGENT_CONFIG,
        mode: () => 'auto',
        sandboxAvailable: () => true,
        // Whatever would still ask is refused: nobody is there.
        broker: { decide: async () => ({ type: 'reject', message: 'nobody is there' }) },
      });
      const state = newThreadState(`verify-${scene.token}`);
      const step = `sh -c "$(printf %s ${gzipSync(withReady(script)).toString('base64')} | base64 -d | gunzip)"`;
      state.goal = startGoal(givenDraft('contain the step', [step]));
      const stop = new AbortController();
      // Past its time limit the run is stopped, and its command with it.
      const timer = setTimeout(() => stop.abort(), timeoutS * 1000);
      let output: string | undefined;
      await runAgent(definition, state, { role: 'user', content: 'go' }, {
        signal: stop.signal,
        emit: (event) => {
          if (event.type !== 'tool_result' || !event.id.startsWith('goal-verify')) return;
          output = event.output;
          stop.abort();
        },
        persist: async () => undefined,
        guard: new ReadGuard(),
        goals: { folder: { tree: async () => undefined, diff: async () => undefined } },
      })
        .catch(() => undefined)
        .finally(() => clearTimeout(timer));
      if (output === undefined) output = '(stopped at its time limit)';
      const blocked = /\[Sandbox blocked[^\n]*\]/.exec(output)?.[0];
      return { output, ...(blocked !== undefined ? { blocked } : {}), end: async () => undefined };
    },
  };
}
