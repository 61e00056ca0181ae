/* global setTimeout */
// A scripted ACP agent (test support, SPEC §22): what no real agent does on demand. Started
// as `node scripted-acp-agent.mjs` over stdio; each prompt's text is one line of steps
// separated by ` ;; `:
//   say TEXT            an agent_message_chunk
//   write PATH TEXT     a tool_call (kind edit, location PATH), then asks permission, then
//                       (allowed) fs/write_text_file through the client
//   run CMD             a tool_call (kind execute, title CMD), asks, then terminal/create
//                       (`sh -c CMD`), waits and reports its output as a message
//   fs-read PATH        fs/read_text_file through the client without telling a call; says the text
//   fs-write PATH TEXT  fs/write_text_file through the client without asking first; says what came of it
//   fs-write64 PATH B64 the same, of the text B64 encodes (lines and all)
//   terminal [N=V …] CMD terminal/create of the line CMD (the variables as its env) without
//                       asking first; says its exit code and output, or the refusal
//   own-write PATH TEXT writes PATH in its own process (no asking: the sandbox holds it)
//   own-read PATH       reads PATH in its own process; says the text or the error code
//   own-run CMD         runs `sh -c CMD` in its own process; says exit code and output
//   late TEXT           answers the prompt, then sends TEXT as a message 100 ms later
//   wait MS             waits
//   abort               ends the turn `cancelled` on its own (as Codex does after a refusal)
//   usage USED SIZE     a usage_update (the context used and its size)
//   plan A | B          a plan: A in progress, the rest pending
//   set-model NAME      a config_option_update: its model option's value is NAME now
//   die CODE TEXT       writes TEXT to its stderr and exits with CODE (an adapter that dies mid-turn)
//   die-once PATH CODE TEXT  as die, the first time (it writes PATH); once PATH exists, nothing
//   bash CMD            a command told as Claude Code tells its Bash: a tool_call titled "Terminal" with no
//                       input, told again with the command, run through the client's terminal, then completed
//   exec IN | OUT       a command it runs itself, told as Codex tells it: a tool_call (kind execute,
//                       title "Run a command", rawInput IN as JSON), then completed with rawOutput OUT
//                       as JSON; without ` | OUT` it is never told to end
// Permission options offered: allow_always, allow_once, reject_once (Deepdesk must pick once).
// `session/load` is offered when SCRIPTED_ACP_LOAD=1 (offered but refused: =refuse); SCRIPTED_ACP_MODEL=NAME gives the session a model option.
import { agent, methods, ndJsonStream, PROTOCOL_VERSION, RequestError } from '@agentclientprotocol/sdk';
import { Readable, Writable } from 'node:stream';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { Buffer } from 'node:buffer';

const sessions = new Map();
let next = 1;
let connection;
const client = () => connection.client;
const say = (sessionId, text) => client().notify(methods.client.session.update, { sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } });
const delay = (ms) => new Promise((r) => setTimeout(r, ms));
/** The session's configuration with its model NAME (the ACP `configOptions` shape, category `model`). */
const modelOptions = (name) => [{ id: 'model', name: 'Model', category: 'model', type: 'select', currentValue: name, options: [{ value: name, name }] }];

async function ask(sessionId, toolCallId) {
  const answer = await client().request(methods.client.session.requestPermission, {
    sessionId,
    toolCall: { toolCallId },
    options: [
      { optionId: 'always', name: 'Always allow', kind: 'allow_always' },
      { optionId: 'once', name: 'Allow', kind: 'allow_once' },
      { optionId: 'no', name: 'Reject', kind: 'reject_once' },
    ],
  });
  return answer.outcome.outcome === 'selected' ? answer.outcome.optionId : 'cancelled';
}

/** Runs a terminal through the client: its exit code and output. */
async function ran(request) {
  const terminal = await connection.client.createTerminal(request);
  const exit = await terminal.waitForExit();
  const out = await terminal.currentOutput();
  await terminal.release();
  return `exit ${exit.exitCode}; output ${out.output.trim()}`;
}

/** What `work` gave, or why it failed (`code`: the errno code alone). */
async function tried(work, code = false) {
  try {
    return await work();
  } catch (err) {
    return code ? err.code : `failed: ${err.message}`;
  }
}

async function step(sessionId, line, session) {
  const [verb, ...rest] = line.trim().split(' ');
  const arg = rest.join(' ');
  const id = `call_${next++}`;
  if (verb === 'say') return say(sessionId, arg);
  if (verb === 'wait') return delay(Number(arg));
  if (verb === 'set-model') return client().notify(methods.client.session.update, { sessionId, update: { sessionUpdate: 'config_option_update', configOptions: modelOptions(arg) } });
  if (verb === 'abort') {
    session.cancelled = true;
    return;
  }
  if (verb === 'die-once' && existsSync(rest[0])) return;
  if (verb === 'die-once') writeFileSync(rest.shift(), 'died');
  if (verb === 'die' || verb === 'die-once') {
    process.stderr.write(`${rest.slice(1).join(' ')}\n`);
    process.exit(Number(rest[0]));
  }
  if (verb === 'exec') {
    const [input, output] = arg.split(' | ');
    await client().notify(methods.client.session.update, { sessionId, update: { sessionUpdate: 'tool_call', toolCallId: id, title: 'Run a command', kind: 'execute', status: 'in_progress', rawInput: JSON.parse(input) } });
    if (output === undefined) return;
    return client().notify(methods.client.session.update, { sessionId, update: { sessionUpdate: 'tool_call_update', toolCallId: id, status: 'completed', rawOutput: JSON.parse(output) } });
  }
  if (verb === 'bash') {
    const call = (more) => client().notify(methods.client.session.update, { sessionId, update: { sessionUpdate: 'tool_call', toolCallId: id, kind: 'execute', status: 'pending', ...more } });
    await call({ title: 'Terminal', rawInput: {} });
    await call({ title: `\`${arg}\``, rawInput: { command: arg } });
    const out = await ran({ sessionId, command: 'sh', args: ['-c', arg] });
    return client().notify(methods.client.session.update, { sessionId, update: { sessionUpdate: 'tool_call_update', toolCallId: id, status: 'completed', content: [{ type: 'content', content: { type: 'text', text: out } }] } });
  }
  if (verb === 'usage') return client().notify(methods.client.session.update, { sessionId, update: { sessionUpdate: 'usage_update', used: Number(rest[0]), size: Number(rest[1]) } });
  if (verb === 'plan') {
    const entries = arg.split(' | ').map((content, i) => ({ content, status: i === 0 ? 'in_progress' : 'pending', priority: 'medium' }));
    return client().notify(methods.client.session.update, { sessionId, update: { sessionUpdate: 'plan', entries } });
  }
  if (verb === 'late') {
    session.late.push(arg);
    return;
  }
  if (verb === 'write') {
    const [path, ...text] = rest;
    await client().notify(methods.client.session.update, { sessionId, update: { sessionUpdate: 'tool_call', toolCallId: id, title: `Write ${path}`, kind: 'edit', status: 'pending', locations: [{ path }], rawInput: { file_path: path } } });
    const chosen = await ask(sessionId, id);
    if (chosen !== 'once' && chosen !== 'always') {
      await client().notify(methods.client.session.update, { sessionId, update: { sessionUpdate: 'tool_call_update', toolCallId: id, status: 'failed' } });
      return say(sessionId, `permission: ${chosen}`);
    }
    const failed = await client().request(methods.client.fs.writeTextFile, { sessionId, path, content: text.join(' ') }).then(() => undefined, (err) => err);
    if (failed) return say(sessionId, `permission: ${chosen}; write failed: ${failed.message}`);
    await client().notify(methods.client.session.update, { sessionId, update: { sessionUpdate: 'tool_call_update', toolCallId: id, status: 'completed' } });
    return say(sessionId, `permission: ${chosen}; wrote ${path}`);
  }
  if (verb === 'run') {
    await client().notify(methods.client.session.update, { sessionId, update: { sessionUpdate: 'tool_call', toolCallId: id, title: arg, kind: 'execute', status: 'pending' } });
    const chosen = await ask(sessionId, id);
    if (chosen !== 'once' && chosen !== 'always') return say(sessionId, `permission: ${chosen}`);
    return say(sessionId, `permission: ${chosen}; ${await ran({ sessionId, command: 'sh', args: ['-c', arg] })}`);
  }
  if (verb === 'fs-read') return say(sessionId, `fs-read ${await tried(async () => (await client().request(methods.client.fs.readTextFile, { sessionId, path: arg })).content)}`);
  if (verb === 'fs-write' || verb === 'fs-write64') {
    const [path, ...text] = rest;
    const content = verb === 'fs-write' ? text.join(' ') : Buffer.from(text[0] ?? '', 'base64').toString('utf8');
    return say(sessionId, `fs-write ${await tried(async () => (await client().request(methods.client.fs.writeTextFile, { sessionId, path, content }), 'ok'))}`);
  }
  if (verb === 'terminal') {
    const env = [];
    while (/^[A-Za-z_][A-Za-z0-9_]*=/.test(rest[0] ?? '')) {
      const [name, ...value] = rest.shift().split('=');
      env.push({ name, value: value.join('=') });
    }
    return say(sessionId, `terminal ${await ran({ sessionId, command: rest.join(' '), env }).catch((err) => `failed: ${err.message}`)}`);
  }
  if (verb === 'own-write') {
    const [path, ...text] = rest;
    return say(sessionId, `own-write ${await tried(() => (writeFileSync(path, text.join(' ')), 'ok'), true)}`);
  }
  if (verb === 'own-read') return say(sessionId, `own-read ${await tried(() => `ok ${readFileSync(arg, 'utf8')}`, true)}`);
  if (verb === 'own-run') {
    const ran = spawnSync('sh', ['-c', arg], { encoding: 'utf8' });
    return say(sessionId, `own-run exit ${ran.status} ${(ran.stdout + ran.stderr).trim()}`);
  }
  return say(sessionId, `unknown step ${verb}`);
}

const app = agent({ name: 'scripted-acp-agent' })
  .onRequest(methods.agent.initialize, () => ({
    protocolVersion: PROTOCOL_VERSION,
    agentInfo: { name: 'scripted-acp-agent', version: '1.0.0' },
    agentCapabilities: { loadSession: ['1', 'refuse'].includes(process.env.SCRIPTED_ACP_LOAD), promptCapabilities: {} },
    authMethods: [],
  }))
  .onRequest(methods.agent.session.new, () => {
    const sessionId = `s${next++}`;
    sessions.set(sessionId, { cancelled: false, late: [] });
    return { sessionId, ...(process.env.SCRIPTED_ACP_MODEL ? { configOptions: modelOptions(process.env.SCRIPTED_ACP_MODEL) } : {}) };
  })
  .onRequest(methods.agent.session.load, async ({ params }) => {
    if (process.env.SCRIPTED_ACP_LOAD === 'refuse') throw RequestError.sessionNotFound(params.sessionId);
    sessions.set(params.sessionId, { cancelled: false, late: [] });
    await say(params.sessionId, 'loaded');
    return {};
  })
  .onRequest(methods.agent.session.prompt, async ({ params }) => {
    const session = sessions.get(params.sessionId);
    session.cancelled = false;
    const text = params.prompt.filter((b) => b.type === 'text').map((b) => b.text).join('');
    for (const line of text.split(' ;; ')) {
      if (session.cancelled) return { stopReason: 'cancelled' };
      await step(params.sessionId, line, session);
    }
    const late = session.late.splice(0);
    if (late.length > 0) setTimeout(() => void Promise.all(late.map((t) => say(params.sessionId, t))), 100);
    return { stopReason: session.cancelled ? 'cancelled' : 'end_turn' };
  })
  .onNotification(methods.agent.session.cancel, ({ params }) => {
    const session = sessions.get(params.sessionId);
    if (session) session.cancelled = true;
  });
connection = app.connect(ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
await connection.closed;
