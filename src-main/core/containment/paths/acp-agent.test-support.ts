// Another agent over ACP (SPEC §22) as execution paths, by its doors: its own process tree
// (the scripted agent's `own-run`, in the sandbox agent-process.ts starts it in) with the
// reads and writes it asks the client for (`fs/*`), and the terminals it asks the client for
// (`terminal/create`, run as Deepdesk's execute in the thread's sandbox, decided at the one
// decision point: `auto` here, so nothing asks). A script is no request for a file, so after
// each case's script has run in the agent's own process (its links and swaps made as an
// attacker makes them) the agent asks the client, in `auto`, for the reads and writes that
// script set up: through every link in the folder, by `..`, and of the folder's own
// configuration, each written with what would run (a firing git config or hook). The case's
// check judges both by effect, with what the reads gave back in the run's output.
// The case's script reaches the agent base64-encoded, as one word of its prompt.
import { basename, join, relative } from 'node:path';
import { LocalShellBackend } from '../../backends/filesystem/local-shell';
import { DEFAULT_RULES } from '../../agent/permissions/rules';
import { AcpClientSession } from '../../acp-client/acp-client';
import { startAgentProcess } from '../../acp-client/agent-process';
import { createSandbox } from '../../sandbox/index';
import { folderSandboxPolicy } from '../../sandbox/protected-entry-files';
import { localPerson } from '../person';
import type { ConformanceEnvironment, ExecutionPath, Scene } from '../types';
import { deferredPerson, withReady } from './deferred-person';

const AGENT = join(import.meta.dirname, '..', '..', 'acp-client', 'testing', 'scripted-acp-agent.mjs');

export type AcpDoor = 'own process' | 'terminal';

const MARK = '==script==';
/** What the agent says as its own process starts the script: the run's time limit counts from there. */
const STARTED = '==started==';
/** Room for the agent's own steps (the prompt, its request, the sandbox's start) on a busy machine. */
const AGENT_STEPS_S = 30;
/**
 * The stop's grace for the agent to leave by itself after its cancel: none. The scripted agent
 * never does, so each stop would wait out the product's whole grace (1 s a case); the stop's
 * kill of the tree, which the cases judge, is the same.
 */
const STOP_GRACE_MS = 0;

/** `timeoutS`: the time limit of the run in progress, its terminals' own (as `execute`'s). */
async function startSession(scene: Scene, timeoutS: () => number, started: () => void): Promise<AcpClientSession> {
  const sandbox = await createSandbox(folderSandboxPolicy({ projectDir: scene.project, dataDir: scene.dataDir }, scene.home));
  if (!sandbox) throw new Error('no sandbox on this machine: the ACP paths cannot be tested');
  const backend = new LocalShellBackend({ rootDir: scene.project, sandbox });
  const proc = await startAgentProcess({ command: process.execPath, args: [AGENT], env: {}, folder: scene.project, dataDir: scene.dataDir, privateHome: join(scene.dataDir, 'agents', 'homes', 'scripted'), droppedEnv: [] });
  const session = new AcpClientSession(proc, {
    agent: 'Scripted',
    folder: scene.project,
    backend,
    execute: (command, options) => backend.execute(command, { ...options, timeoutS: timeoutS() }),
    rules: () => DEFAULT_RULES,
    mode: () => 'auto',
    // Whatever would still ask is refused: nobody is there.
    ask: async () => false,
    onUpdate: (u) => {
      if (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' && u.content.text === STARTED) started();
    },
  });
  await session.initialize();
  await session.newSession();
  return session;
}

export function acpAgentPath(door: AcpDoor): ExecutionPath {
  const person = deferredPerson();
  // One agent per scene (a case's runs share it), stopped when the case ends its runs.
  const sessions = new Map<Scene, Promise<AcpClientSession>>();
  let limitS = 60;
  let started = (): void => undefined;
  let environment: ConformanceEnvironment | undefined;
  return {
    name: door === 'terminal' ? 'ACP agent’s terminal (terminal/create)' : 'ACP agent’s own process and file requests (fs/read_text_file, fs/write_text_file)',
    notApplicable: {
      'trusted-script': 'an agent runs no configuration entry of the folder (the hook path’s neighbour is a command)',
      ...(door === 'own process' ? { application: 'the agent’s own process has no write layer (SPEC §22): its writes land as it makes them' } : {}),
    },
    person,
    async setUp(env) {
      environment = env;
      person.set(localPerson(env));
    },
    async tearDown() {
      for (const session of sessions.values()) await (await session).stop(STOP_GRACE_MS);
      sessions.clear();
    },
    async run(scene, script, { timeoutS }) {
      let opened = sessions.get(scene);
      limitS = timeoutS;
      if (opened === undefined) sessions.set(scene, (opened = startSession(scene, () => limitS, () => started())));
      const session = await opened;
      const end = async (): Promise<void> => {
        if (sessions.get(scene) !== opened) return;
        sessions.delete(scene);
        await session.stop(STOP_GRACE_MS);
      };
      // What the agent says after the mark is the script's output (the agent trims what it says).
      const run = `echo ${MARK}; sh -c "$(printf %s ${Buffer.from(withReady(script)).toString('base64')} | base64 -d)"`;
      // Its own process waits for the script's output to close: what the script leaves running must not hold it.
      const turn = session.prompt(door === 'terminal' ? `terminal ${run}` : `say ${STARTED} ;; own-run o=$(mktemp); ${run} >$o 2>&1 </dev/null; c=$?; cat $o; rm -f $o; exit $c`);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const said = await Promise.race([
        turn.then((t) => messageTexts(t.updates).join('\n')),
        // Past its time limit (with room for the agent's own steps) the run is its agent's stop (SPEC §22): the whole tree ends with it.
        // Its own process's script has no limit of its own: the limit counts from the script's start, as a terminal's does.
        new Promise<undefined>((resolve) => {
          timer = setTimeout(() => resolve(undefined), (timeoutS + AGENT_STEPS_S) * 1000);
          started = () => {
            clearTimeout(timer);
            timer = setTimeout(() => resolve(undefined), timeoutS * 1000);
          };
        }),
      ]).finally(() => {
        clearTimeout(timer);
        started = () => undefined;
      });
      turn.catch(() => undefined);
      if (said === undefined) await end();
      const requested = door === 'own process' && said !== undefined ? await fileRequests(session, scene, environment!) : '';
      const output = said === undefined ? '(stopped at its time limit)' : said.slice(said.indexOf(MARK) + MARK.length) + requested;
      const blocked = /\[Sandbox blocked[^\n]*\]/.exec(output)?.[0];
      return { output, ...(blocked !== undefined ? { blocked } : {}), end };
    },
  };
}

const FS_TIMEOUT_MS = 60_000;

/** What a prompt's turn said, a line per step, within the door's bound. */
async function saidBy(session: AcpClientSession, prompt: string): Promise<string[]> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const turn = session.prompt(prompt);
  turn.catch(() => undefined);
  const updates = await Promise.race([turn.then((t) => t.updates), new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`the agent's turn did not end: ${prompt.slice(0, 80)}`)), FS_TIMEOUT_MS)))]).finally(() => clearTimeout(timer));
  return messageTexts(updates);
}

/** The texts the agent said in a turn's updates, in order. */
function messageTexts(updates: Awaited<ReturnType<AcpClientSession['prompt']>>['updates']): string[] {
  return updates.flatMap((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? [u.content.text] : []));
}

/** The file requests after a case's script, and what each came to (a line each). */
async function fileRequests(session: AcpClientSession, scene: Scene, env: ConformanceEnvironment): Promise<string> {
  const [found = ''] = await saidBy(session, `own-run find ${scene.project} -type l`);
  const links = found.replace(/^own-run exit \S+ /, '').split('\n').filter((line) => line.startsWith('/'));
  const gitConfig = `[core]\n\tfsmonitor = ${scene.fire}\n\thooksPath = ${scene.project}\n`;
  const hook = `#!/bin/sh\n${scene.fire} "$0" "$@"\n`;
  const content = (path: string): string => (basename(path) === 'config' ? gitConfig : /commit|checkout/.test(basename(path)) ? hook : `pwned ${scene.fire}\n`);
  const writes = [
    ...['.git/config', '.git/hooks/pre-commit', '.git/hooks/post-checkout', '.deepdesk/hooks.json', '.mcp.json', '.claude/settings.json', '.claude/skills/x/SKILL.md'].map((rel) => join(scene.project, rel)),
    join(scene.outside, 'target.txt'),
    // Named from the folder, outside by `..` (kept as written: join would resolve it).
    `${scene.project}/${relative(scene.project, join(scene.outside, 'target.txt'))}`,
    ...links.flatMap((link) => [link, ...['target.txt', 'new.txt', 'config', 'hooks/pre-commit', 'pre-commit', 'hooks.json', 'settings.json'].map((name) => join(link, name))]),
  ];
  const reads = new Set([
    ...Object.keys(env.secretFiles).map((rel) => join(scene.home, rel)),
    ...links.flatMap((link) => [link, ...Object.keys(env.secretFiles).flatMap((rel) => [join(link, rel), join(link, basename(rel))])]),
  ]);
  const requests = [...[...reads].map((path) => `fs-read ${path}`), ...writes.map((path) => `fs-write64 ${path} ${Buffer.from(content(path)).toString('base64')}`)];
  const results = await saidBy(session, requests.join(' ;; '));
  return requests.map((request, i) => `\n${request.split(' ').slice(0, 2).join(' ')} → ${results[i] ?? '(no answer)'}`).join('');
}
