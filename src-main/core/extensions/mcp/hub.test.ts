// The hub against real servers: server-everything over stdio and streamable HTTP (and its
// SSE transport through the fallback), server-filesystem, and the test server of __fixtures__.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { detectSandbox } from '../../sandbox';
import { createTestHub, EVERYTHING, FILESYSTEM, httpEntry, startHttpServer, stdioEntry, TEST_SERVER, type HttpServerProcess, type TestHub } from './hub.test-support';

let t: TestHub | undefined;
const servers: HttpServerProcess[] = [];
afterEach(async () => {
  await t?.dispose();
  t = undefined;
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

const never = new AbortController().signal;

describe('McpHub over stdio', () => {
  it('connects server-everything: tools with qualified names and schemas, echo, an image, structured content, a resource, a prompt', async () => {
    t = createTestHub();
    await t.hub.configure([stdioEntry('every thing', [EVERYTHING, 'stdio'])], []);
    const [state] = t.hub.states();
    expect(state!.status, state!.error).toBe('connected');
    const names = t.hub.tools().map((tool) => tool.qualifiedName);
    expect(names).toContain('mcp__every_thing__echo');
    expect(names).toContain('mcp__every_thing__get-tiny-image');
    const echo = t.hub.tools().find((tool) => tool.name === 'echo')!;
    expect(echo.inputSchema).toMatchObject({ type: 'object', properties: { message: { type: 'string' } } });
    expect(t.hub.tools().find((tool) => tool.name === 'get-structured-content')!.readOnly).toBe(true);

    expect((await t.hub.callTool('mcp__every_thing__echo', { message: 'hi there' }, never)).text).toBe('Echo: hi there');

    const image = await t.hub.callTool('mcp__every_thing__get-tiny-image', {}, never);
    expect(image.media?.mimeType).toBe('image/png');
    expect(image.media!.data.length).toBeGreaterThan(100);
    expect(image.text).not.toContain('Error');

    const structured = await t.hub.callTool('mcp__every_thing__get-structured-content', { location: 'Chicago' }, never);
    expect(structured.text).toContain('"temperature":36');

    const links = await t.hub.callTool('mcp__every_thing__get-resource-links', { count: 2 }, never);
    expect(links.text).toMatch(/^\[resource demo:\/\/resource\/dynamic\/(text|blob)\/1 \(/m);

    const embedded = await t.hub.callTool('mcp__every_thing__get-resource-reference', { resourceType: 'Text', resourceId: 3 }, never);
    expect(embedded.text).toMatch(/\[resource demo:\/\/resource\/dynamic\/text\/3[^\n]*\]\n/);

    const resources = t.hub.resources();
    expect(resources.length).toBeGreaterThan(0);
    const doc = resources.find((r) => r.uri.startsWith('demo://resource/static/document/'))!;
    const read = await t.hub.readResource('every thing', doc.uri);
    expect(read.text.length).toBeGreaterThan(20);
    const text = await t.hub.readResource('every thing', 'demo://resource/dynamic/text/2');
    expect(text.text).toContain('2');

    const prompt = t.hub.prompts().find((p) => p.name === 'args-prompt')!;
    expect(prompt.qualifiedName).toBe('mcp__every_thing__args-prompt');
    expect(prompt.arguments.find((a) => a.name === 'city')!.required).toBe(true);
    expect(await t.hub.getPrompt('mcp__every_thing__args-prompt', { city: 'Lisbon' })).toContain('Lisbon');
  });

  it('lists every page of tools, maps isError, and picks up tools/list_changed before the call that caused it returns', async () => {
    t = createTestHub();
    const changes: number[] = [];
    t.hub.onChange(() => changes.push(t!.hub.tools().length));
    await t.hub.configure([stdioEntry('test', [TEST_SERVER], { env: { MANY_TOOLS: '4' } })], []);
    // 9 tools + 4, three a page.
    expect(t.hub.tools().map((x) => x.name)).toEqual(['slow', 'add_tool', 'add_resource', 'peek', 'big', 'fail', 'crash', 'header', 'weather', 'tool_0', 'tool_1', 'tool_2', 'tool_3']);
    expect(t.hub.tools().find((x) => x.name === 'peek')!.readOnly).toBe(true);
    expect(t.hub.tools().find((x) => x.name === 'slow')!.readOnly).toBe(false);
    expect((await t.hub.callTool('mcp__test__fail', {}, never)).text).toBe('Error: the widget store is closed');
    expect(JSON.parse((await t.hub.callTool('mcp__test__weather', {}, never)).text)).toEqual({ temperature: 21, sky: 'clear' });

    const added = await t.hub.callTool('mcp__test__add_tool', {}, never);
    expect(added.text).toBe('added');
    expect(t.hub.tools().map((x) => x.qualifiedName)).toContain('mcp__test__extra');
    expect(changes.at(-1)).toBe(14);
    expect((await t.hub.callTool('mcp__test__extra', { a: 1 }, never)).text).toBe('extra ran with {"a":1}');
  });

  it('lists a long tools list to its end (140 pages of 3)', async () => {
    t = createTestHub();
    await t.hub.configure([stdioEntry('inv', [TEST_SERVER], { env: { MANY_TOOLS: '411' } })], []);
    expect(t.hub.tools()).toHaveLength(420);
    expect(t.hub.tools().at(-1)!.name).toBe('tool_410');
  });

  it('resources (text parts joined, an image blob as an image), resources/list_changed, and a prompt with its arguments', async () => {
    t = createTestHub();
    await t.hub.configure([stdioEntry('test', [TEST_SERVER])], []);
    expect(t.hub.resources().map((r) => r.uri)).toEqual(['test://note', 'test://pixel']);
    expect(await t.hub.readResource('test', 'test://note')).toEqual({ text: 'first part\nsecond part' });
    const pixel = await t.hub.readResource('test', 'test://pixel');
    expect(pixel.image?.mimeType).toBe('image/png');
    await t.hub.callTool('mcp__test__add_resource', {}, never);
    expect(t.hub.resources().map((r) => r.uri)).toContain('test://later');
    const [prompt] = t.hub.prompts();
    expect(prompt).toEqual({
      server: 'test',
      name: 'review',
      qualifiedName: 'mcp__test__review',
      description: 'Review a file',
      arguments: [{ name: 'file', required: true }, { name: 'tone', required: false }],
    });
    expect(await t.hub.getPrompt('mcp__test__review', { file: 'a.ts' })).toBe('Review a.ts kindly.\n\n[resource test://note, text/plain]\nthe note');
    await expect(t.hub.readResource('nobody', 'test://note')).rejects.toThrow('no MCP server named nobody');
  });

  it('a call past its entry timeout ends with the timeout error and the server sees notifications/cancelled', async () => {
    const logDir = mkdtempSync(join(tmpdir(), 'mcp-log-'));
    onTestFinished(() => rmSync(logDir, { recursive: true, force: true }));
    const log = join(logDir, 'log');
    writeFileSync(log, '');
    t = createTestHub();
    // The timeout is every call's: long enough for the quick ones on a loaded machine.
    await t.hub.configure([stdioEntry('s', [TEST_SERVER], { env: { MCP_TEST_LOG: log }, timeoutMs: 2_000 })], []);
    // Had the timeout not ended it, the call would have answered after 20 s.
    const out = await t.hub.callTool('mcp__s__slow', { ms: 20_000 }, never);
    expect(out.text).toBe('Error: MCP tool mcp__s__slow timed out after 2 s');
    await expect.poll(() => readFileSync(log, 'utf8')).toContain('cancelled');
    // The server is still usable.
    expect((await t.hub.callTool('mcp__s__peek', {}, never)).text).toBe('peeked');
  });

  it('Stop (the signal) cancels a running call: notifications/cancelled reaches the server', async () => {
    const logDir = mkdtempSync(join(tmpdir(), 'mcp-log-'));
    onTestFinished(() => rmSync(logDir, { recursive: true, force: true }));
    const log = join(logDir, 'log');
    writeFileSync(log, '');
    t = createTestHub();
    await t.hub.configure([stdioEntry('s', [TEST_SERVER], { env: { MCP_TEST_LOG: log } })], []);
    const stop = new AbortController();
    const call = t.hub.callTool('mcp__s__slow', { ms: 20_000 }, stop.signal);
    await expect.poll(() => readFileSync(log, 'utf8')).toContain('slow started');
    stop.abort();
    expect((await call).text).toBe('Error: mcp__s__slow was cancelled');
    await expect.poll(() => readFileSync(log, 'utf8')).toContain('cancelled');
  });

  it('a server that fails to start is failed with its stderr; the others still connect; not-trusted and disabled entries are listed, not started', async () => {
    t = createTestHub();
    await t.hub.configure(
      [stdioEntry('broken', [TEST_SERVER, '--fail-start']), stdioEntry('good', [TEST_SERVER]), stdioEntry('off', [TEST_SERVER], { disabled: true })],
      [stdioEntry('stranger', [TEST_SERVER])],
    );
    const byName = Object.fromEntries(t.hub.states().map((s) => [s.name, s]));
    expect(byName.good!.status).toBe('connected');
    expect(byName.broken!.status).toBe('failed');
    expect(byName.broken!.error).toContain('cannot reach the database at db.invalid');
    expect(byName.broken!.log).toContain('cannot reach the database at db.invalid');
    expect(byName.off!.status).toBe('disabled');
    expect(byName.stranger!.status).toBe('not-trusted');
    expect(t.hub.tools().every((tool) => tool.server === 'good')).toBe(true);
  });

  it('an entry listed as not trusted starts once it is trusted (same entry, now among the servers)', async () => {
    t = createTestHub();
    const entry = stdioEntry('stranger', [TEST_SERVER]);
    await t.hub.configure([], [entry]);
    expect(t.hub.states().map((s) => s.status)).toEqual(['not-trusted']);
    await t.hub.configure([entry], []);
    expect(t.hub.states().map((s) => s.status)).toEqual(['connected']);
    expect(t.hub.tools().length).toBeGreaterThan(0);
  });

  it('a server that never answers the handshake fails at the startup timeout without holding up the others', async () => {
    // Long enough for a heavily loaded machine to start the good one.
    t = createTestHub({ startupTimeoutMs: 15_000 });
    const silent = stdioEntry('silent', ['-e', 'setInterval(() => {}, 1000)']);
    await t.hub.configure([silent, stdioEntry('good', [TEST_SERVER])], []);
    const byName = Object.fromEntries(t.hub.states().map((s) => [s.name, s]));
    expect(byName.silent!.status).toBe('failed');
    expect(byName.silent!.error).toContain('did not start within 15 s');
    expect(byName.good!.status).toBe('connected');
  });

  it('a server that dies is failed with its last output; restart brings it back', async () => {
    t = createTestHub();
    await t.hub.configure([stdioEntry('s', [TEST_SERVER])], []);
    await t.hub.callTool('mcp__s__crash', {}, never);
    await expect.poll(() => t!.hub.states()[0]!.status).toBe('failed');
    expect(t.hub.states()[0]!.error).toContain('crashing on request');
    expect(t.hub.tools()).toEqual([]);
    expect((await t.hub.callTool('mcp__s__peek', {}, never)).text).toMatch(/^Error: /);
    await t.hub.restart('s');
    expect(t.hub.states()[0]!.status).toBe('connected');
    expect((await t.hub.callTool('mcp__s__peek', {}, never)).text).toBe('peeked');
  });

  it('configure restarts a changed entry, keeps an unchanged one running, stops a removed one', async () => {
    t = createTestHub();
    const a = stdioEntry('a', [TEST_SERVER]);
    const b = stdioEntry('b', [TEST_SERVER]);
    await t.hub.configure([a, b], []);
    const clientOf = (name: string): unknown => (t!.hub as unknown as { slots: Map<string, { client?: unknown }> }).slots.get(name)?.client;
    const aClient = clientOf('a');
    const bClient = clientOf('b');
    await t.hub.configure([a, { ...b, env: { CHANGED: '1' } }], []);
    expect(clientOf('a')).toBe(aClient);
    expect(clientOf('b')).not.toBe(bClient);
    expect(t.hub.states().map((s) => s.status)).toEqual(['connected', 'connected']);
    await t.hub.configure([b], []);
    expect(t.hub.states().map((s) => s.name)).toEqual(['b']);
    expect(t.hub.tools().every((tool) => tool.server === 'b')).toBe(true);
  });

  it('two servers whose names clean alike keep their tools apart: neither keeps the plain name, each gets a hash of its own', async () => {
    t = createTestHub();
    await t.hub.configure([stdioEntry('a.b', [TEST_SERVER]), stdioEntry('a_b', [TEST_SERVER], { env: { MARK: '2' } })], []);
    const peeks = t.hub.tools().filter((tool) => tool.name === 'peek');
    expect(peeks.map((p) => p.server)).toEqual(['a.b', 'a_b']);
    for (const peek of peeks) expect(peek.qualifiedName).toMatch(/^mcp__a_b_[0-9a-f]{8}__peek$/);
    expect(peeks[0]!.qualifiedName).not.toBe(peeks[1]!.qualifiedName);
    expect((await t.hub.callTool(peeks[1]!.qualifiedName, {}, never)).text).toBe('peeked');
  });

  it('server-filesystem: lists and reads the folder it was given', async () => {
    t = createTestHub();
    writeFileSync(join(t.folder, 'notes.txt'), 'hello from the folder\n');
    await t.hub.configure([stdioEntry('fs', [FILESYSTEM, t.folder])], []);
    expect(t.hub.states()[0]!.status, t.hub.states()[0]!.error).toBe('connected');
    const read = t.hub.tools().find((tool) => tool.name === 'read_text_file' || tool.name === 'read_file')!;
    expect(read.readOnly).toBe(true);
    const out = await t.hub.callTool(read.qualifiedName, { path: join(t.folder, 'notes.txt') }, never);
    expect(out.text).toContain('hello from the folder');
    const written = t.hub.tools().find((tool) => tool.name === 'write_file')!;
    expect(written.readOnly).toBe(false);
    await t.hub.callTool(written.qualifiedName, { path: join(t.folder, 'new.txt'), content: 'made' }, never);
    expect(existsSync(join(t.folder, 'new.txt'))).toBe(true);
  });
});

describe('McpHub over HTTP', () => {
  it('streamable HTTP: server-everything tools, an image and a prompt over 127.0.0.1', async () => {
    const server = await startHttpServer([EVERYTHING, 'streamableHttp'], /listening on port/);
    servers.push(server);
    t = createTestHub();
    await t.hub.configure([httpEntry('remote', `http://127.0.0.1:${server.port}/mcp`)], []);
    expect(t.hub.states()[0]!.status, t.hub.states()[0]!.error).toBe('connected');
    expect((await t.hub.callTool('mcp__remote__echo', { message: 'over http' }, never)).text).toBe('Echo: over http');
    expect((await t.hub.callTool('mcp__remote__get-tiny-image', {}, never)).media?.mimeType).toBe('image/png');
    expect(await t.hub.getPrompt('mcp__remote__simple-prompt', {})).toMatch(/\w/);
  });

  it('an http entry whose server speaks only SSE falls back to SSE', async () => {
    const server = await startHttpServer([EVERYTHING, 'sse'], /running on port/);
    servers.push(server);
    t = createTestHub();
    await t.hub.configure([httpEntry('old', `http://127.0.0.1:${server.port}/sse`)], []);
    const [state] = t.hub.states();
    expect(state!.status, state!.error).toBe('connected');
    expect(state!.log).toContain('trying SSE');
    expect((await t.hub.callTool('mcp__old__echo', { message: 'sse' }, never)).text).toBe('Echo: sse');
  });

  it('an sse entry speaks SSE straight away', async () => {
    const server = await startHttpServer([EVERYTHING, 'sse'], /running on port/);
    servers.push(server);
    t = createTestHub();
    await t.hub.configure([httpEntry('old', `http://127.0.0.1:${server.port}/sse`, { type: 'sse' })], []);
    const [state] = t.hub.states();
    expect(state!.status, state!.error).toBe('connected');
    expect(state!.log).not.toContain('trying SSE');
    expect((await t.hub.callTool('mcp__old__get-sum', { a: 2, b: 3 }, never)).text).toContain('5');
  });

  it('the stateless test server over HTTP: timeout and list_changed work as over stdio; headers reach the server', async () => {
    const server = await startHttpServer([TEST_SERVER, '--http', '{PORT}'], /listening/);
    servers.push(server);
    t = createTestHub();
    await t.hub.configure([httpEntry('h', `http://127.0.0.1:${server.port}/mcp`, { timeoutMs: 2_000, headers: { 'x-test': '1' } })], []);
    expect(t.hub.states()[0]!.status, t.hub.states()[0]!.error).toBe('connected');
    expect((await t.hub.callTool('mcp__h__slow', { ms: 20_000 }, never)).text).toBe('Error: MCP tool mcp__h__slow timed out after 2 s');
    expect((await t.hub.callTool('mcp__h__peek', {}, never)).text).toBe('peeked');
    expect((await t.hub.callTool('mcp__h__header', {}, never)).text).toBe('x-test: 1');
  });

  it('a remote server that is not there fails; a stdio one beside it connects', async () => {
    t = createTestHub();
    await t.hub.configure([httpEntry('gone', 'http://127.0.0.1:9/mcp'), stdioEntry('good', [TEST_SERVER])], []);
    const byName = Object.fromEntries(t.hub.states().map((s) => [s.name, s]));
    expect(byName.gone!.status).toBe('failed');
    expect(byName.good!.status).toBe('connected');
  });
});

describe.skipIf(!(await detectSandbox()).available)("a sandboxed server's tool results are accepted only once what it did was checked", () => {
  it("what it planted for the person's git is undone before its result comes back, and said", async () => {
    t = createTestHub();
    const folder = realpathSync(t.folder);
    execFileSync('git', ['init', '-q'], { cwd: folder });
    const marker = join(t.dataDir, 'MARKER-ran');
    const program = join(t.dataDir, 'mark.sh');
    writeFileSync(program, `#!/bin/sh\necho ran >> '${marker}'\n`, { mode: 0o755 });
    await t.hub.configure([stdioEntry('planter', [TEST_SERVER, '--write-tool'], { sandbox: true })], []);
    expect(t.hub.states()[0]!.status, t.hub.states()[0]!.error).toBe('connected');
    const nested = join(folder, 'nested', '.git');
    const result = await t.hub.callTool(
      'mcp__planter__write',
      {
        files: {
          [join(nested, 'HEAD')]: 'ref: refs/heads/main\n',
          [join(nested, 'objects', '.keep')]: '',
          [join(nested, 'refs', 'heads', '.keep')]: '',
          [join(nested, 'config')]: `[core]\n\trepositoryformatversion = 0\n\tfsmonitor = ${program}\n`,
        },
      },
      never,
    );
    // At once, not when some watch gets to it: the person may run git the moment the agent says so.
    expect(readFileSync(join(nested, 'config'), 'utf8')).not.toContain('fsmonitor');
    expect(`${result.text}\n${t.hub.states()[0]!.log}`).toMatch(/\[Sandbox blocked [^\n]*\/nested\/\.git\/config/);
    execFileSync('git', ['status'], { cwd: join(folder, 'nested'), stdio: 'ignore' });
    expect(existsSync(marker)).toBe(false);
  });
});
