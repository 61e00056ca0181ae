// MCP servers through the app's contract (SPEC §9, §10), with real servers: the window's
// edits of the person's mcp.json, a folder's .mcp.json behind trust, `@server:URI` and
// `/mcp__server__prompt` in a message, no server left running once the app closed, and
// none of Deepdesk's credentials in a server's command line, environment or headers unless
// its entry names them and the trust list showed it.

import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../core/models/testing/scripted-server';
import { until, useAppTestEnv } from '../window/app-harness.test-support';

const t = useAppTestEnv('deepdesk-mcp-app');
const EVERYTHING = join(import.meta.dirname, '../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const TEST_SERVER = join(import.meta.dirname, '../../core/extensions/mcp/__fixtures__/test-server.mjs');
const everything = { command: process.execPath, args: [EVERYTHING, 'stdio'] };

const userFile = (): string => join(t.dataDir, 'mcp.json');
const userServers = (): Record<string, unknown> => (JSON.parse(readFileSync(userFile(), 'utf8')) as { mcpServers: Record<string, unknown> }).mcpServers;
const textOf = (content: unknown): string => (typeof content === 'string' ? content : Array.isArray(content) ? content.map((p: { text?: string }) => p.text ?? '').join('') : '');
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('MCP servers through the contract', () => {
  it('Settings adds, turns off, edits and removes a server of the person’s mcp.json', async () => {
    const { call } = await t.open();
    await call('mcp.save', { name: 'everything', entry: everything });
    expect(userServers()).toEqual({ everything });
    await expect.poll(async () => (await call('mcp.list', {})).servers[0]?.statusText, { timeout: 60_000 }).toMatch(/^Connected · \d+ tools$/);
    let list = await call('mcp.list', {});
    expect(list.servers[0]).toMatchObject({ name: 'everything', type: 'stdio', source: 'user', status: 'connected', sandboxed: true, target: `${process.execPath} ${EVERYTHING} stdio` });
    expect(list.servers[0]!.tools.map((tool) => tool.qualifiedName)).toContain('mcp__everything__echo');

    list = await call('mcp.setEnabled', { name: 'everything', enabled: false });
    expect(list.servers[0]).toMatchObject({ status: 'disabled', statusText: 'Disabled', tools: [] });
    expect(userServers()).toEqual({ everything: { ...everything, disabled: true } });
    // Turning it on answers at once (listed Starting); it connects in the background.
    list = await call('mcp.setEnabled', { name: 'everything', enabled: true });
    expect(list.servers[0]!.status).toMatch(/^(starting|connected)$/);
    await expect.poll(async () => (await call('mcp.list', {})).servers[0]?.status, { timeout: 60_000 }).toBe('connected');

    // A bad edit is refused with the field named, and nothing is written.
    await expect(call('mcp.save', { name: 'everything', entry: { command: 3 } })).rejects.toThrow(/mcpServers\.everything\.command/);
    await expect(call('mcp.save', { name: 'web', entry: { url: 'ftp://example.com' } })).rejects.toThrow(/not an http\(s\) URL/);
    expect(Object.keys(userServers())).toEqual(['everything']);

    list = await call('mcp.save', { name: 'renamed', entry: { ...everything, sandbox: false }, previousName: 'everything' });
    expect(Object.keys(userServers())).toEqual(['renamed']);
    expect(list.servers.map((s) => [s.name, s.sandboxed])).toEqual([['renamed', false]]);
    list = await call('mcp.remove', { name: 'renamed' });
    expect(list.servers).toEqual([]);
    expect(userServers()).toEqual({});
  }, 90_000);

  it("a folder's server is listed as not trusted until trust.grant, and a change to it needs trust again", async () => {
    writeFileSync(join(t.folder, '.mcp.json'), JSON.stringify({ mcpServers: { theirs: everything } }));
    const { call, events } = await t.open();
    await expect.poll(async () => (await call('trust.get', {})).untrusted.map((e) => e.label)).toEqual([`MCP server theirs: ${process.execPath} ${EVERYTHING} stdio (sandboxed)`]);
    expect((await call('mcp.list', {})).servers[0]).toMatchObject({ name: 'theirs', status: 'not-trusted', statusText: 'Not trusted' });

    expect(await call('trust.dismiss', {})).toMatchObject({ dismissed: true });
    const granted = await call('trust.grant', { digest: (await call('trust.get', {})).digest });
    expect(granted.untrusted).toEqual([]);
    await expect.poll(async () => (await call('mcp.list', {})).servers[0]?.status, { timeout: 60_000 }).toBe('connected');

    // A `git pull` changes the entry: it stops loading until it is trusted again.
    writeFileSync(join(t.folder, '.mcp.json'), JSON.stringify({ mcpServers: { theirs: { ...everything, env: { EXTRA: '1' } } } }));
    await expect.poll(async () => (await call('trust.get', {})).untrusted.map((e) => e.key), { timeout: 60_000 }).toEqual(['mcp:theirs']);
    // Asked again, it says it changed since it was trusted, and what it was then.
    expect((await call('trust.get', {})).untrusted[0]).toMatchObject({ key: 'mcp:theirs', changedFrom: `MCP server theirs: ${process.execPath} ${EVERYTHING} stdio (sandboxed)` });
    await expect.poll(async () => (await call('mcp.list', {})).servers[0]!.status).toBe('not-trusted');
    expect(events.some((e) => e.event === 'trust.changed')).toBe(true);
  }, 90_000);

  it("Settings' Trust on one server trusts that entry alone, and answers before the server has started", async () => {
    // `slow` answers `initialize` only after 4 s (as a server still downloading its package).
    const slow = { command: process.execPath, args: ['-e', 'setTimeout(() => import(process.argv[1]), 4000)', TEST_SERVER] };
    writeFileSync(join(t.folder, '.mcp.json'), JSON.stringify({ mcpServers: { slow, other: { command: 'srv' } } }));
    const { call } = await t.open();
    await expect.poll(async () => (await call('trust.get', {})).untrusted.map((e) => e.key), { timeout: 60_000 }).toEqual(['mcp:slow', 'mcp:other']);
    const shown = (await call('trust.get', {})).untrusted.find((e) => e.key === 'mcp:slow')!;
    expect(shown.label).toBe(`MCP server slow: ${process.execPath} -e 'setTimeout(() => import(process.argv[1]), 4000)' ${TEST_SERVER} (sandboxed)`);

    // The list's digest is not this entry's: nothing is trusted.
    const refused = await call('trust.grant', { digest: (await call('trust.get', {})).digest, keys: ['mcp:slow'] });
    expect(refused.note).toMatch(/changed/);
    expect(refused.untrusted.map((e) => e.key)).toEqual(['mcp:slow', 'mcp:other']);

    const granted = await call('trust.grant', { digest: shown.digest, keys: [shown.key] });
    expect(granted.untrusted.map((e) => e.key)).toEqual(['mcp:other']);
    // It starts in the background, shown as starting meanwhile.
    await expect.poll(async () => (await call('mcp.list', {})).servers.find((s) => s.name === 'slow')?.status, { timeout: 60_000 }).toBe('starting');
    expect((await call('mcp.list', {})).servers.find((s) => s.name === 'other')?.status).toBe('not-trusted');
    await expect.poll(async () => (await call('mcp.list', {})).servers.find((s) => s.name === 'slow')?.status, { timeout: 60_000 }).toBe('connected');
  }, 60_000);

  it('@server:URI attaches the resource and /mcp__server__prompt sends the prompt', async () => {
    writeFileSync(userFile(), JSON.stringify({ mcpServers: { everything } }));
    t.server.push(
      (req: RecordedRequest) => ({ text: `got: ${textOf(req.messages.at(-1)!.content).slice(0, 2000)}` }),
      (req: RecordedRequest) => ({ text: `prompt: ${textOf(req.messages.at(-1)!.content)}` }),
    );
    const { call } = await t.open();
    await expect.poll(async () => (await call('mcp.list', {})).servers[0]?.status, { timeout: 60_000 }).toBe('connected');
    const resources = await call('mcp.resources', { query: 'architecture' });
    expect(resources.length).toBeGreaterThan(0);
    const { server, uri } = resources[0]!;
    const thread = await call('threads.create', {});
    await call('threads.send', { threadId: thread.id, text: `summarise @${server}:${uri}` });
    await expect.poll(() => t.server.requests.length, { timeout: 60_000 }).toBe(1);
    const sent = textOf(t.server.requests[0]!.messages.at(-1)!.content);
    expect(sent).toMatch(new RegExp(`^summarise @${server}:${uri.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n\\n<attached_resource server="everything" uri="[^"]+">\\n`));

    const prompts = await call('mcp.prompts', {});
    expect(prompts.map((p) => p.command)).toContain('/mcp__everything__simple-prompt');
    await expect.poll(async () => (await call('threads.get', { threadId: thread.id })).thread.running).toBe(false);
    await call('threads.send', { threadId: thread.id, text: '/mcp__everything__simple-prompt' });
    await expect.poll(() => t.server.requests.length, { timeout: 60_000 }).toBe(2);
    expect(textOf(t.server.requests[1]!.messages.at(-1)!.content)).not.toContain('/mcp__everything__simple-prompt');

    await expect(call('threads.send', { threadId: thread.id, text: '/mcp__everything__no-such-prompt' })).rejects.toThrow(/is not a prompt of a connected MCP server/);
  }, 90_000);

  it('closing the app ends its servers, sandboxed or not', async () => {
    // In the folder: the data folder is out of a sandboxed server's reach.
    const log = join(t.folder, 'servers.log');
    // Names this test's servers among any others running on the machine.
    const marker = `--marker-${randomUUID()}`;
    writeFileSync(log, '');
    writeFileSync(
      userFile(),
      JSON.stringify({
        mcpServers: {
          inside: { command: process.execPath, args: [TEST_SERVER, marker], env: { MCP_TEST_LOG: log } },
          outside: { command: process.execPath, args: [TEST_SERVER, marker], env: { MCP_TEST_LOG: log }, sandbox: false },
        },
      }),
    );
    const { call, close } = await t.open();
    await expect.poll(async () => (await call('mcp.list', {})).servers.map((s) => s.status), { timeout: 60_000 }).toEqual(['connected', 'connected']);
    // Pids as each server sees itself: the sandboxed one's is in its own pid namespace, so it is found by its command line.
    const pids = [...readFileSync(log, 'utf8').matchAll(/started (\d+)/g)].map((m) => Number(m[1]));
    expect(pids).toHaveLength(2);
    const serverPids = (): number[] => hostPidsOf(marker);
    expect(serverPids().length).toBeGreaterThanOrEqual(2);
    await close();
    expect(serverPids()).toEqual([]);
  }, 60_000);
});

/** Host pids of the live processes whose command line has `word` (Linux /proc), bwrap itself left out. */
function hostPidsOf(word: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      if (cmdline.split('\0').includes(word) && !cmdline.includes('bwrap') && alive(Number(name))) pids.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

describe("Deepdesk's credentials in a folder's MCP entries (SPEC §9, §10)", () => {
  // A stdio server that records what it was started with (its argv and environment) to $RECORD_TO, then ends.
  // Written whole, then renamed into place: the test reads it the moment it exists.
  const RECORDER = "const fs = require('node:fs'); fs.writeFileSync(process.env.RECORD_TO + '.part', JSON.stringify({ argv: process.argv, env: process.env })); fs.renameSync(process.env.RECORD_TO + '.part', process.env.RECORD_TO);\n";
  const KEYS = { DAYTONA_API_KEY: 'dtn-key-0123456789abcdef', LANGSMITH_API_KEY: 'lsv2-key-0123456789abcdef', ANTHROPIC_API_KEY: 'sk-ant-key-0123456789abcdef' };

  it('expands none of them unless the entry names it in "credentials" and the trust list showed it, and never onto a command line', async () => {
    // An HTTP endpoint that records every request's headers (it answers 404: the servers fail, the headers are what count).
    const seen: Record<string, unknown>[] = [];
    const endpoint = createServer((req, res) => {
      seen.push(req.headers);
      res.writeHead(404).end();
    });
    await new Promise<void>((done) => endpoint.listen(0, '127.0.0.1', done));
    const url = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/mcp`;
    try {
      writeFileSync(join(t.folder, 'record.cjs'), RECORDER);
      const record = (name: string): string => join(t.folder, `${name}.json`);
      const server = (name: string, entry: { args?: string[]; env?: Record<string, string>; credentials?: string[] }) => ({
        command: process.execPath,
        args: [join(t.folder, 'record.cjs'), ...(entry.args ?? [])],
        env: { RECORD_TO: record(name), ...entry.env },
        ...(entry.credentials ? { credentials: entry.credentials } : {}),
      });
      writeFileSync(
        join(t.folder, '.mcp.json'),
        JSON.stringify({
          mcpServers: {
            // On the command line: refused even when the entry names it.
            inargs: server('inargs', { args: ['--key=${ANTHROPIC_API_KEY}'], credentials: ['ANTHROPIC_API_KEY'] }),
            // In env, not named: refused.
            inenv: server('inenv', { env: { DAYTONA_API_KEY: '${DAYTONA_API_KEY}', LANGCHAIN_API_KEY: '${LANGSMITH_API_KEY}' } }),
            // In a header, not named: refused.
            inheader: { url, headers: { 'X-Leak': '${LANGSMITH_API_KEY}' } },
            // The person's own variable expands, in args and env.
            harmless: server('harmless', { args: ['--dir=${MY_TOKEN_DIR}'], env: { TOKEN_DIR: '${MY_TOKEN_DIR}' } }),
            // Named and shown: in env only.
            named: server('named', { env: { ANTHROPIC_API_KEY: '${ANTHROPIC_API_KEY}' }, credentials: ['ANTHROPIC_API_KEY'] }),
            namedheader: { url, headers: { Authorization: 'Bearer ${LANGSMITH_API_KEY}', 'X-Dir': '${MY_TOKEN_DIR}' }, credentials: ['LANGSMITH_API_KEY'] },
          },
        }),
      );
      const { call } = await t.open({ settings: {}, env: { HOME: process.env.HOME, ...KEYS, MY_TOKEN_DIR: '/home/someone/tokens' } });
      const labels = (await until(async () => ((await call('trust.get', {})).untrusted.length === 6 ? (await call('trust.get', {})).untrusted : undefined), 'the trust list')).map((e) => e.label);
      // The trust question names the credentials an entry takes: trusting the line is trusting exactly that.
      expect(labels.find((l) => l.startsWith('MCP server named:'))).toMatch(/; Deepdesk's credentials it takes: ANTHROPIC_API_KEY$/);
      expect(labels.find((l) => l.startsWith('MCP server namedheader:'))).toMatch(/; Deepdesk's credentials it takes: LANGSMITH_API_KEY$/);
      expect(labels.find((l) => l.startsWith('MCP server inenv:'))).not.toMatch(/credentials it takes/);
      await call('trust.grant', { digest: (await call('trust.get', {})).digest });

      const recorded = async (name: string): Promise<{ argv: string[]; env: Record<string, string> }> =>
        JSON.parse(await until(() => (existsSync(record(name)) ? readFileSync(record(name), 'utf8') : undefined), `${name}'s record`, 30_000)) as { argv: string[]; env: Record<string, string> };
      const harmless = await recorded('harmless');
      const named = await recorded('named');
      // By effect: no server got a key but the named entry, and that one only in its environment.
      for (const name of ['inargs', 'inenv', 'harmless', 'named']) {
        if (!existsSync(record(name))) continue;
        const { argv, env } = await recorded(name);
        const text = JSON.stringify({ argv, env: { ...env, ANTHROPIC_API_KEY: name === 'named' ? '' : env.ANTHROPIC_API_KEY } });
        for (const key of Object.values(KEYS)) expect(text, `${name}'s argv and environment`).not.toContain(key);
      }
      await until(() => seen.some((h) => h['x-dir'] === '/home/someone/tokens'), 'the named entry’s request', 30_000);
      expect(seen.filter((h) => h['x-leak'] !== undefined)).toEqual([]);
      expect(harmless.argv.slice(2)).toEqual(['--dir=/home/someone/tokens']);
      expect(harmless.env.TOKEN_DIR).toBe('/home/someone/tokens');
      expect(named.env.ANTHROPIC_API_KEY).toBe(KEYS.ANTHROPIC_API_KEY);
      expect(seen.filter((h) => h.authorization !== undefined).map((h) => h.authorization)).toEqual(seen.map(() => `Bearer ${KEYS.LANGSMITH_API_KEY}`));
      expect(seen.every((h) => h['x-dir'] === '/home/someone/tokens')).toBe(true);

      // The refused entries never started, and say why, naming the variable and where it may go.
      const { problems } = await call('mcp.list', {});
      expect(problems.find((p) => p.includes('mcpServers.inargs.args[1]'))).toMatch(/\$\{ANTHROPIC_API_KEY\} is a credential and would be on the command line.*pass it through "env"/);
      expect(problems.find((p) => p.includes('mcpServers.inenv.env.'))).toMatch(/\$\{(DAYTONA|LANGSMITH)_API_KEY\} is one of Deepdesk's credentials: an entry gets it only when it names it in "credentials"/);
      expect(problems.find((p) => p.includes('mcpServers.inheader.headers.X-Leak'))).toMatch(/\$\{LANGSMITH_API_KEY\} is one of Deepdesk's credentials/);
      expect(existsSync(record('inargs')) || existsSync(record('inenv'))).toBe(false);
    } finally {
      await new Promise((done) => endpoint.close(done));
    }
  }, 90_000);
});
