// A stdio server's frames are bounded (issue 37): a line over MCP_STDIO_MAX_LINE_BYTES is a
// protocol error of that server — it is failed with one line saying so, its process ends —
// never an uncaught exception of Deepdesk's, and what it sends is never held past the limit.
import { afterEach, describe, expect, it } from 'vitest';
import { createTestHub, stdioEntry, TEST_SERVER, type TestHub } from './hub.test-support';
import { LineFramer, MCP_MAX_MESSAGE_DEPTH, MCP_STDIO_MAX_LINE_BYTES } from './stdio-lines';

let t: TestHub | undefined;
afterEach(async () => {
  await t?.dispose();
  t = undefined;
});

const never = new AbortController().signal;
const MB = 1024 * 1024;

describe('a stdio server that writes a line over the limit', () => {
  it('12 MB without a newline at start: that server is failed with one line naming the limit; another beside it connects', async () => {
    t = createTestHub();
    const flood = stdioEntry('flood', ['-e', `process.stdout.write('x'.repeat(${12 * MB})); setInterval(() => {}, 1000)`]);
    await t.hub.configure([flood, stdioEntry('good', [TEST_SERVER])], []);
    const byName = Object.fromEntries(t.hub.states().map((s) => [s.name, s]));
    expect(byName.flood!.status).toBe('failed');
    expect(byName.flood!.error).toContain(`a message longer than ${MCP_STDIO_MAX_LINE_BYTES / MB} MB`);
    expect(byName.flood!.log.split('\n').filter((l) => l.includes('longer than'))).toHaveLength(1);
    expect(byName.good!.status).toBe('connected');
    expect((await t.hub.callTool('mcp__good__peek', {}, never)).text).toBe('peeked');
  });

  it('a connected server whose answer is over the limit: the call errs, the server is failed, the process goes on', async () => {
    t = createTestHub();
    await t.hub.configure([stdioEntry('s', [TEST_SERVER])], []);
    const result = await t.hub.callTool('mcp__s__big', { chars: 12 * MB }, never);
    expect(result.text).toMatch(/^Error: /);
    await expect.poll(() => t!.hub.states()[0]!.status).toBe('failed');
    expect(t.hub.states()[0]!.error).toContain('longer than');
    await t.hub.restart('s');
    expect((await t.hub.callTool('mcp__s__peek', {}, never)).text).toBe('peeked');
  });

  it('memory stays bounded: 400 MB without a newline is never held', async () => {
    t = createTestHub();
    const chunk = 4 * MB;
    const script = `const b = Buffer.alloc(${chunk}, 120); let n = 0; const go = () => { while (n < 100) { n++; if (!process.stdout.write(b)) return process.stdout.once('drain', go); } setInterval(() => {}, 1000); }; go();`;
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    try {
      await t.hub.configure([stdioEntry('hog', ['-e', script])], []);
    } finally {
      clearInterval(sampler);
    }
    expect(t.hub.states()[0]!.status).toBe('failed');
    expect(t.hub.states()[0]!.error).toContain('longer than');
    expect(peak - before).toBeLessThan(200 * MB);
  });
});

describe('a stdio server whose message nests too deep', () => {
  it('a tool schema nested 100,000 deep: the server is failed with one line saying so (the schema would overflow the stack of every model call)', async () => {
    t = createTestHub();
    const script = [
      "const send = (o) => process.stdout.write(JSON.stringify(o) + '\\n');",
      "require('readline').createInterface({ input: process.stdin }).on('line', (l) => {",
      '  const m = JSON.parse(l);',
      "  if (m.method === 'initialize') send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'deep', version: '1' } } });",
      `  else if (m.method === 'tools/list') process.stdout.write('{"jsonrpc":"2.0","id":' + m.id + ',"result":{"tools":[{"name":"t","inputSchema":{"type":"object","properties":{"x":' + '['.repeat(100000) + ']'.repeat(100000) + '}}}]}}\\n');`,
      '});',
    ].join('\n');
    await t.hub.configure([stdioEntry('deep', ['-e', script]), stdioEntry('good', [TEST_SERVER])], []);
    const byName = Object.fromEntries(t.hub.states().map((s) => [s.name, s]));
    expect(byName.deep!.status).toBe('failed');
    expect(byName.deep!.error).toContain(`nested deeper than ${MCP_MAX_MESSAGE_DEPTH} levels`);
    expect(byName.good!.status).toBe('connected');
  });
});

describe('LineFramer', () => {
  it('joins lines split across chunks, drops one trailing CR, and breaks for good past the limit', () => {
    const framer = new LineFramer(10);
    expect(framer.push(Buffer.from('{"a"'))).toEqual({ lines: [], overflow: false });
    expect(framer.push(Buffer.from(':1}\r\n{}\n{'))).toEqual({ lines: ['{"a":1}', '{}'], overflow: false });
    expect(framer.push(Buffer.from('"b":2}\n'))).toEqual({ lines: ['{"b":2}'], overflow: false });
    expect(framer.push(Buffer.from('0123456789'))).toEqual({ lines: [], overflow: false });
    expect(framer.push(Buffer.from('A\n{}\n'))).toEqual({ lines: [], overflow: true });
    expect(framer.push(Buffer.from('{}\n'))).toEqual({ lines: [], overflow: true });
  });
});
