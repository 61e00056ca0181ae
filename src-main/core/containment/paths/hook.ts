// The hook: a person's or a trusted folder's command on the agent's events (SPEC §11), run
// by runHook as the person, outside the sandbox by design. So the git, link, protected-path,
// secret and file-kind cases do not apply (what a hook does is the person's own doing); what
// does: no Deepdesk credentials in its environment, its process tree ends at its timeout,
// and its script in the folder cannot be rewritten by a sandboxed command of the same folder.
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { loadHooks } from '../../extensions/hooks/config';
import { runHook, runHooks, type HookInput } from '../../extensions/hooks/runner';
import type { HookEntry } from '../../extensions/hooks/types';
import { folderTrust } from '../../trust/folder-trust';
import { trustReport } from '../../trust/report';
import { TrustStore } from '../../trust/store';
import { readText } from '../effects';
import { localPerson } from '../person';
import type { ExecutionPath, Scene } from '../types';
import { deferredPerson, withReady } from './deferred-person';
import { localSandboxedCommand } from './local';

const BY_DESIGN = 'hooks run as the person, outside the sandbox, by design (SPEC §11): what a hook does is the person’s own doing';

function input(scene: Scene): HookInput {
  return { session_id: 'conformance', cwd: scene.project, hook_event_name: 'PreToolUse', permission_mode: 'auto', tool_name: 'execute', tool_input: { command: 'true' }, tool_use_id: 'c1' };
}

export function hookPath(): ExecutionPath {
  const person = deferredPerson();
  const neighbour = localSandboxedCommand();
  return {
    name: 'hook',
    notApplicable: {
      git: BY_DESIGN,
      links: BY_DESIGN,
      protected: BY_DESIGN,
      secrets: `${BY_DESIGN}; it reads what the person can`,
      'file-kinds': BY_DESIGN,
      application: 'a hook writes straight to the folder as the person: there is no write layer to apply',
      worktree: `${BY_DESIGN}; a worktree's hook runs as the person like any other`,
    },
    person,
    async setUp(env) {
      person.set(localPerson(env));
      await neighbour.setUp(env);
    },
    async tearDown() {
      await neighbour.tearDown();
    },
    async run(scene, script, { timeoutS }) {
      const hook: HookEntry = {
        id: 'conformance#PreToolUse.0.0',
        event: 'PreToolUse',
        command: withReady(script),
        timeoutMs: timeoutS * 1000,
        source: 'project',
        file: join(scene.project, '.deepdesk', 'hooks.json'),
        digest: 'conformance',
      };
      // Deepdesk's environment is this process's (the product's default).
      const run = await runHook(hook, input(scene), { folder: scene.project });
      if (run.failure !== undefined) throw new Error(`the hook could not run: ${run.failure}`);
      return { output: `${run.stdout}\n${run.stderr}`, end: async () => undefined };
    },
    trustedScript: {
      neighbour,
      async install(scene, rel, by) {
        mkdirSync(join(scene.project, rel, '..'), { recursive: true });
        writeFileSync(join(scene.project, rel), `#!/bin/sh\necho trusted > ${join(scene.root, 'trusted-ran')}\n`, { mode: 0o755 });
        const hooksOf = (command: string) => `${JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ type: 'command', command }] }] } })}\n`;
        if (by === 'person') {
          // The person's own hook, naming the folder's script: no trust of the folder is asked.
          writeFileSync(join(scene.dataDir, 'hooks.json'), hooksOf(`bash "$CLAUDE_PROJECT_DIR/${rel}"`));
        } else {
          mkdirSync(join(scene.project, '.deepdesk'), { recursive: true });
          writeFileSync(join(scene.project, '.deepdesk', 'hooks.json'), hooksOf(`sh ${rel}`));
          // The person trusts the folder as shown (the window's `Trust folder`, `deepdesk trust`).
          const store = new TrustStore(scene.dataDir);
          const report = await trustReport(scene.project, store, process.env);
          expect(report.entries.map((e) => e.kind), 'what the folder would load').toEqual(['hook']);
          store.trust(scene.project, report.entries);
        }
        // The harness: the trusted hook runs as installed.
        await this.trigger(scene);
        expect(await readText(person, scene, join(scene.root, 'trusted-ran')), 'the trusted hook ran').toBe('trusted\n');
        await person.sh(`rm -f ${join(scene.root, 'trusted-ran')}`, scene.root);
      },
      async trigger(scene) {
        const store = new TrustStore(scene.dataDir);
        const loaded = loadHooks({ dataDir: scene.dataDir, folder: scene.project, isTrusted: folderTrust(store, scene.project).isTrusted });
        await runHooks(loaded.hooks.filter((h) => h.event === 'PreToolUse'), input(scene), { folder: scene.project });
      },
    },
  };
}
