// MCP server entries read from real files: good entries in every form, one clear problem per
// bad file or entry (naming file and field) while the others still load, `${VAR}` expansion,
// defaults, type inference, merge order, and editing that keeps everything else as written.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expandVars } from './expand-vars';
import { withholdFromCommands } from '../process/app-secrets';
import { mergeServers, readMcpConfigFile, removeServerEntry, serverDigest, setServerDisabled, writeServerEntry } from './mcp-config';
import { problemLine, type McpServerConfig } from './mcp-config-types';

let dir: string;
let file: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'deepdesk-mcpcfg-'));
  file = join(dir, 'mcp.json');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const write = (value: unknown): void => writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
const lines = (read: ReturnType<typeof readMcpConfigFile>): string[] => read.problems.map(problemLine);

describe('expandVars', () => {
  it('expands ${VAR} and ${VAR:-default} (default when unset or empty), leaves $VAR alone, and names what is unset', () => {
    const env = { A: 'a', EMPTY: '' };
    expect(expandVars('x-${A}-${B:-bee}-${EMPTY:-e}-${EMPTY}-$A', env)).toEqual({ ok: true, value: 'x-a-bee-e--$A' });
    expect(expandVars('${NOPE}/${NOPE}/${ALSO}', env)).toEqual({ ok: false, missing: ['NOPE', 'ALSO'] });
    expect(expandVars('${A:-}', {})).toEqual({ ok: true, value: '' });
  });
});

describe('readMcpConfigFile', () => {
  it("a folder's file with its servers at the top level is one line naming the file and the servers; a plugin's loads them", () => {
    write({ github: { command: 'npx', args: ['-y', '@x/github'] }, docs: { type: 'http', url: 'https://x.example/mcp' } });
    const folder = readMcpConfigFile(file, 'project', {});
    expect(folder.servers).toEqual([]);
    expect(lines(folder)).toEqual([`${file}: mcpServers: is missing: the servers github, docs stand at the top level; put them under "mcpServers" ({"mcpServers":{"github":{…}}}), as Claude Code's .mcp.json has them`]);
    const plugin = readMcpConfigFile(file, 'user', {}, 'plugin');
    expect(plugin.servers.map((s) => [s.name, s.type])).toEqual([['github', 'stdio'], ['docs', 'http']]);
    expect(plugin.problems).toEqual([]);
    // A plugin's file may wrap them too, and a file of other settings is no server file at all.
    write({ mcpServers: { a: { command: 'x' } } });
    expect(readMcpConfigFile(file, 'user', {}, 'plugin').servers.map((s) => s.name)).toEqual(['a']);
    write({ theme: 'dark', version: 2 });
    expect(readMcpConfigFile(file, 'project', {})).toEqual({ servers: [], problems: [] });
  });

  it('reads stdio and http entries with types inferred, defaults filled in and variables expanded', () => {
    write({
      mcpServers: {
        gh: { command: 'npx', args: ['-y', '@x/github', '--home=${HOME_DIR}'], env: { TOKEN: '${GH_TOKEN}', LEVEL: '${LEVEL:-info}' }, credentials: ['GH_TOKEN'] },
        docs: { url: 'https://${HOST}/mcp', headers: { Authorization: 'Bearer ${API:-none}' }, timeout: 5000 },
        old: { type: 'sse', url: 'http://127.0.0.1:9/sse' },
        raw: { type: 'stdio', command: 'srv', sandbox: false, allowedDomains: ['api.example.com'], disabled: true },
      },
      otherKey: true,
    });
    const read = readMcpConfigFile(file, 'user', { HOME_DIR: '/h', GH_TOKEN: 't0k', HOST: 'docs.example.com' });
    expect(read.problems).toEqual([]);
    const byName = Object.fromEntries(read.servers.map((s) => [s.name, s]));
    expect(byName.gh).toEqual({
      name: 'gh',
      source: { kind: 'user', file },
      type: 'stdio',
      command: 'npx',
      args: ['-y', '@x/github', '--home=/h'],
      env: { TOKEN: 't0k', LEVEL: 'info' },
      sandbox: true,
      // npx fetches its package: it may reach the registry (the default one here).
      allowedDomains: ['registry.npmjs.org'],
      timeoutMs: 60_000,
      disabled: false,
      digest: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(byName.docs).toMatchObject({ type: 'http', url: 'https://docs.example.com/mcp', headers: { Authorization: 'Bearer none' }, timeoutMs: 5000 });
    expect(byName.old).toMatchObject({ type: 'sse', url: 'http://127.0.0.1:9/sse', headers: {} });
    expect(byName.raw).toMatchObject({ type: 'stdio', sandbox: false, allowedDomains: ['api.example.com'], disabled: true, args: [], env: {} });
  });

  it("the person's own keys reach their servers as published entries write them; Deepdesk's own credentials do not", () => {
    // Context7's and mem0's published entries, as Claude Code takes them.
    write({
      mcpServers: {
        context7: { type: 'http', url: 'https://mcp.context7.com/mcp', headers: { CONTEXT7_API_KEY: '${CONTEXT7_API_KEY}' } },
        bearer: { url: 'https://mcp.context7.com/mcp', headers: { Authorization: 'Bearer ${CONTEXT7_API_KEY}' } },
        local: { command: 'npx', args: ['-y', '@upstash/context7-mcp', '--api-key', '${CONTEXT7_API_KEY}'] },
        mem0: { command: 'npx', args: ['-y', '@mem0/mcp-server'], env: { MEM0_API_KEY: '${MEM0_API_KEY}' } },
      },
    });
    const env = { CONTEXT7_API_KEY: 'ctx7sk-person', MEM0_API_KEY: 'm0-person-key' };
    const read = readMcpConfigFile(file, 'project', env);
    expect(read.problems).toEqual([]);
    const byName = Object.fromEntries(read.servers.map((s) => [s.name, s]));
    expect(byName.context7).toMatchObject({ headers: { CONTEXT7_API_KEY: 'ctx7sk-person' } });
    expect(byName.bearer).toMatchObject({ headers: { Authorization: 'Bearer ctx7sk-person' } });
    expect(byName.local).toMatchObject({ args: ['-y', '@upstash/context7-mcp', '--api-key', 'ctx7sk-person'] });
    expect(byName.mem0).toMatchObject({ env: { MEM0_API_KEY: 'm0-person-key' } });

    // Deepdesk's own, by the tables that name them (a provider's key, LangSmith's, a sandbox provider's) or by value.
    withholdFromCommands('sk-deepdesk-provider-key');
    write({
      mcpServers: {
        provider: { url: 'https://x.example/mcp', headers: { Authorization: 'Bearer ${ANTHROPIC_API_KEY}' } },
        tracing: { command: 'srv', env: { K: '${LANGSMITH_API_KEY}' } },
        sandbox: { command: 'srv', env: { K: '${DAYTONA_API_KEY}' } },
        copied: { command: 'srv', env: { K: '${MY_COPY}' } },
        online: { command: 'srv', args: ['--key', '${OPENAI_API_KEY}'], credentials: ['OPENAI_API_KEY'] },
      },
    });
    const held = readMcpConfigFile(file, 'project', { ANTHROPIC_API_KEY: 'a', LANGSMITH_API_KEY: 'l', DAYTONA_API_KEY: 'd', MY_COPY: 'sk-deepdesk-provider-key', OPENAI_API_KEY: 'o' });
    expect(held.servers).toEqual([]);
    const problems = held.problems.map(problemLine).join('\n');
    for (const name of ['ANTHROPIC_API_KEY', 'LANGSMITH_API_KEY', 'DAYTONA_API_KEY', 'MY_COPY']) expect(problems).toContain(`\${${name}} is one of Deepdesk's credentials`);
    expect(problems).toContain('${OPENAI_API_KEY} is a credential and would be on the command line');
  });

  it('a missing file declares nothing; a missing --mcp-config file is a problem', () => {
    expect(readMcpConfigFile(file, 'project', {})).toEqual({ servers: [], problems: [] });
    expect(lines(readMcpConfigFile(file, 'cli', {}))).toEqual([`${file}: no such file`]);
  });

  it('malformed JSON is one problem naming the file', () => {
    write('{"mcpServers": {"a": {"command": "x"},}}');
    const read = readMcpConfigFile(file, 'project', {});
    expect(read.servers).toEqual([]);
    expect(read.problems).toHaveLength(1);
    expect(lines(read)[0]).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: is not valid JSON \\(`));
    write('[1]');
    expect(lines(readMcpConfigFile(file, 'project', {}))).toEqual([`${file}: must be a JSON object like {"mcpServers": {…}}`]);
    write({ mcpServers: [] });
    expect(lines(readMcpConfigFile(file, 'project', {}))).toEqual([`${file}: mcpServers: must be an object of server entries by name`]);
  });

  it('a link to a device or a FIFO, a folder, or a huge file is one problem, never a hang', () => {
    symlinkSync('/dev/zero', file);
    expect(lines(readMcpConfigFile(file, 'project', {}))).toEqual([`${file}: is not a regular file`]);
    rmSync(file);
    execFileSync('mkfifo', [file]);
    expect(lines(readMcpConfigFile(file, 'project', {}))).toEqual([`${file}: is not a regular file`]);
    rmSync(file);
    mkdirSync(file);
    expect(lines(readMcpConfigFile(file, 'project', {}))).toEqual([`${file}: is not a regular file`]);
    rmSync(file, { recursive: true });
    write(`{"mcpServers": {}, "pad": "${'x'.repeat(1024 * 1024)}"}`);
    expect(lines(readMcpConfigFile(file, 'project', {}))[0]).toMatch(/: is too large \(\d+ bytes; at most 1048576\)$/);
  });

  it('a bad entry is one problem naming its field, and the other entries still load', () => {
    write({
      mcpServers: {
        good: { command: 'ok' },
        badArgs: { command: 'x', args: ['a', 3] },
        badTimeout: { command: 'x', timeout: 'soon' },
        nothing: { args: [] },
        both: { command: 'x', url: 'http://h' },
        typedNoUrl: { type: 'http', command: 'x' },
        typedNoCommand: { type: 'stdio', url: 'http://h' },
        badType: { type: 'websocket', url: 'ws://h' },
        notUrl: { url: 'file:///etc/passwd' },
        notObject: 'npx server',
        unset: { command: 'x', env: { TOKEN: '${MISSING_VALUE}' } },
        unsetArg: { command: 'x', args: ['ok', '${A}${B}'] },
      },
    });
    const read = readMcpConfigFile(file, 'project', {});
    expect(read.servers.map((s) => s.name)).toEqual(['good']);
    const got = lines(read);
    expect(got).toHaveLength(11);
    const of = (name: string) => got.find((l) => l.startsWith(`${file}: mcpServers.${name}`));
    expect(of('badArgs')).toMatch(/^.*: mcpServers\.badArgs\.args\[1\]: .*string/i);
    expect(of('badTimeout')).toMatch(/mcpServers\.badTimeout\.timeout: .*number/i);
    expect(of('nothing')).toBe(`${file}: mcpServers.nothing: needs "command" (a server started here) or "url" (a remote server)`);
    expect(of('both')).toContain('mcpServers.both: has both "command" and "url"');
    expect(of('typedNoUrl')).toBe(`${file}: mcpServers.typedNoUrl.url: is required for an http server`);
    expect(of('typedNoCommand')).toBe(`${file}: mcpServers.typedNoCommand.command: is required for a stdio server`);
    expect(of('badType')).toMatch(/mcpServers\.badType\.type: /);
    expect(of('notUrl')).toBe(`${file}: mcpServers.notUrl.url: is not an http(s) URL: file:///etc/passwd`);
    expect(of('notObject')).toBe(`${file}: mcpServers.notObject: must be an object`);
    expect(of('unset')).toBe(`${file}: mcpServers.unset.env.TOKEN: \${MISSING_VALUE} is not set (write \${NAME:-default} for a default)`);
    expect(of('unsetArg')).toContain('mcpServers.unsetArg.args[1]: ${A} and ${B} are not set');
  });

  it('the digest is of the entry as written: key order does not matter, any change does, expansion does not', () => {
    write({ mcpServers: { a: { command: 'x', args: ['${V}'] } } });
    const first = readMcpConfigFile(file, 'project', { V: '1' }).servers[0]!;
    expect(readMcpConfigFile(file, 'project', { V: '2' }).servers[0]!.digest).toBe(first.digest);
    write('{"mcpServers": {"a": {"args": ["${V}"], "command": "x"}}}');
    expect(readMcpConfigFile(file, 'project', { V: '1' }).servers[0]!.digest).toBe(first.digest);
    write({ mcpServers: { a: { command: 'x', args: ['${V}', '--more'] } } });
    expect(readMcpConfigFile(file, 'project', { V: '1' }).servers[0]!.digest).not.toBe(first.digest);
    expect(first.digest).toBe(serverDigest({ args: ['${V}'], command: 'x' }));
  });
});

describe('mergeServers', () => {
  const server = (name: string, kind: 'user' | 'project' | 'cli'): McpServerConfig => ({
    name,
    source: { kind, file: `/${kind}` },
    type: 'http',
    url: `http://${kind}/${name}`,
    headers: {},
    timeoutMs: 1,
    disabled: false,
    digest: kind,
  });
  it('a later list wins on a name clash', () => {
    const merged = mergeServers([server('a', 'user'), server('b', 'user')], [server('b', 'project'), server('c', 'project')], [server('a', 'cli')]);
    expect(merged.map((s) => `${s.name}:${s.source.kind}`).sort()).toEqual(['a:cli', 'b:project', 'c:project']);
  });
});

describe('editing a file', () => {
  it('adds, disables, enables and removes entries, keeping other keys and entries exactly as written', () => {
    write({ theme: 'dark', mcpServers: { keep: { command: 'k', args: ['1'], extra: { unknownField: 1 } }, broken: { command: 7 } } });
    writeServerEntry(file, 'gh', { command: 'npx', args: ['-y', 'gh'] });
    setServerDisabled(file, 'gh', true);
    let json = JSON.parse(readFileSync(file, 'utf8')) as { theme: string; mcpServers: Record<string, unknown> };
    expect(json.theme).toBe('dark');
    expect(json.mcpServers).toEqual({
      keep: { command: 'k', args: ['1'], extra: { unknownField: 1 } },
      broken: { command: 7 },
      gh: { command: 'npx', args: ['-y', 'gh'], disabled: true },
    });
    expect(readMcpConfigFile(file, 'user', {}).servers.find((s) => s.name === 'gh')!.disabled).toBe(true);
    setServerDisabled(file, 'gh', false);
    expect(removeServerEntry(file, 'keep')).toBe(true);
    expect(removeServerEntry(file, 'keep')).toBe(false);
    json = JSON.parse(readFileSync(file, 'utf8')) as typeof json;
    expect(json.mcpServers).toEqual({ broken: { command: 7 }, gh: { command: 'npx', args: ['-y', 'gh'] } });
    expect(() => setServerDisabled(file, 'nope', true)).toThrow(/no MCP server named 'nope'/);
  });

  it('creates a new file 0600 (entries carry tokens), and refuses a malformed entry or an unreadable file without writing', () => {
    const fresh = join(dir, 'sub', 'mcp.json');
    mkdirSync(join(dir, 'sub'));
    writeServerEntry(fresh, 'docs', { url: 'https://x/mcp', headers: { Authorization: 'Bearer ${T}' } });
    expect(statSync(fresh).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(fresh, 'utf8'))).toEqual({ mcpServers: { docs: { url: 'https://x/mcp', headers: { Authorization: 'Bearer ${T}' } } } });
    expect(() => writeServerEntry(fresh, 'bad', { command: 'x', timeout: -1 })).toThrow(/not saved: .*mcpServers\.bad\.timeout/);
    write('{ not json');
    expect(() => writeServerEntry(file, 'gh', { command: 'x' })).toThrow(/cannot edit .*is not valid JSON/);
    expect(readFileSync(file, 'utf8')).toBe('{ not json');
  });
});

describe('package runners (SPEC §10)', () => {
  it("a server started by npx, pnpm dlx, bunx, uvx or pipx run may reach its runner's registry, as the person's configuration names it; the label says so", async () => {
    const { mcpServerLabel } = await import('./kinds/mcp');
    const { readServerEntries } = await import('./mcp-config');
    write({
      mcpServers: {
        everything: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] },
        py: { command: 'uvx', args: ['mcp-server-fetch'] },
        plain: { command: 'node', args: ['server.js'] },
        own: { command: 'pnpm', args: ['dlx', 'x'], allowedDomains: ['api.example.com'] },
      },
    });
    const env = { npm_config_registry: 'http://127.0.0.1:4873/' };
    const servers = readMcpConfigFile(file, 'user', env).servers;
    const byName = Object.fromEntries(servers.map((s) => [s.name, s.type === 'stdio' ? s.allowedDomains : []]));
    // Inside the sandbox the person's ~/.npmrc is not readable: the runner is told the registry, without credentials.
    expect(servers.find((s) => s.name === 'everything')).toMatchObject({ env: { npm_config_registry: 'http://127.0.0.1:4873/' } });
    expect(readMcpConfigFile(file, 'user', { npm_config_registry: 'https://me:secret@npm.example.com/' }).servers.find((s) => s.name === 'everything')).toMatchObject({ env: { npm_config_registry: 'https://npm.example.com/' }, allowedDomains: ['npm.example.com'] });
    expect(byName).toEqual({ everything: ['127.0.0.1'], py: ['pypi.org', 'files.pythonhosted.org'], plain: [], own: ['api.example.com', '127.0.0.1'] });
    const labels = readServerEntries(file, 'user').entries.map((e) => mcpServerLabel(e, {}));
    expect(labels[0]).toBe('MCP server everything: npx -y @modelcontextprotocol/server-everything (sandboxed, network: registry.npmjs.org (package runner))');
    expect(labels[2]).toBe('MCP server plain: node server.js (sandboxed)');
  });
});
