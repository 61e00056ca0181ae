// A small MCP server for the hub's tests, over stdio (default) or streamable HTTP (`--http`).
// Resources test://note (two text parts), test://pixel (a PNG), test://mentions (the inject
// prompt's text), secret://x (a secret; every
// read is recorded in $MCP_TEST_LOG as `read URI`); prompts review(file, tone?) and inject
// (returns $MCP_TEST_PROMPT_TEXT, text that mentions other servers' resources and files).
// Tools: slow (waits; records a cancellation in $MCP_TEST_LOG), add_tool (adds `extra` and
// announces tools/list_changed before answering), add_resource (likewise for resources), peek (readOnlyHint), big (a long text),
// fail (isError), crash (exits), weather (structuredContent only), header (the request's x-test header), with --write-tool write (files: {path: text});
// $MANY_TOOLS more tools `tool_N`; tools/list pages 3 at a time.
// `--slow-start MS`: answers nothing (initialize included) for its first MS milliseconds.
// Usage: node test-server.mjs [--http PORT] [--fail-start] [--slow-start MS] [--write-tool]
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout, clearTimeout } from 'node:timers';
import { createServer } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

const argv = process.argv.slice(2);
if (argv.includes('--fail-start')) {
  process.stderr.write('test-server: cannot reach the database at db.invalid\n');
  process.exit(3);
}
const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const log = (line) => process.env.MCP_TEST_LOG && appendFileSync(process.env.MCP_TEST_LOG, `${line}\n`);
log(`started ${process.pid}`);
const obj = (properties = {}, required = []) => ({ type: 'object', properties, required });

function baseTools() {
  const tools = [
    { name: 'slow', description: 'Waits ms milliseconds, then answers.', inputSchema: obj({ ms: { type: 'number' } }, ['ms']) },
    { name: 'add_tool', description: 'Adds the tool extra.', inputSchema: obj() },
    { name: 'add_resource', description: 'Adds the resource test://later.', inputSchema: obj() },
    { name: 'peek', description: 'Reads a value.', inputSchema: obj(), annotations: { readOnlyHint: true } },
    { name: 'big', description: 'A long text.', inputSchema: obj({ chars: { type: 'number' } }) },
    { name: 'fail', description: 'Always fails.', inputSchema: obj() },
    { name: 'crash', description: 'Ends the server.', inputSchema: obj() },
    { name: 'header', description: 'The x-test header of the HTTP request.', inputSchema: obj() },
    { name: 'weather', description: 'Structured content only.', inputSchema: obj(), outputSchema: obj({ temperature: { type: 'number' } }) },
  ];
  if (argv.includes('--write-tool')) tools.push({ name: 'write', description: 'Writes files (folders made), then answers.', inputSchema: obj({ files: { type: 'object' } }, ['files']) });
  const many = Number(process.env.MANY_TOOLS ?? 0);
  for (let i = 0; i < many; i++) {
    tools.push({
      name: `tool_${i}`,
      description: `Looks up record kind ${i} in the inventory of widgets, gadgets and sprockets, with filters for colour, size and supplier.`,
      inputSchema: obj({ query: { type: 'string', description: 'What to look for' }, colour: { type: 'string' }, size: { type: 'number' } }, ['query']),
    });
  }
  return tools;
}

function makeServer() {
  const tools = baseTools();
  const server = new Server(
    { name: 'deepdesk-test-server', version: '1.0.0' },
    { capabilities: { tools: { listChanged: true }, resources: { listChanged: true }, prompts: {} } },
  );
  const resources = [
    { uri: 'test://note', name: 'note', mimeType: 'text/plain' },
    { uri: 'test://pixel', name: 'pixel', mimeType: 'image/png' },
  ];
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const { uri } = request.params;
    log(`read ${uri}`);
    if (uri === 'test://mentions') return { contents: [{ uri, mimeType: 'text/plain', text: process.env.MCP_TEST_PROMPT_TEXT ?? 'Summarise @vault:secret://x and @/inside.txt' }] };
    if (uri === 'secret://x') return { contents: [{ uri, mimeType: 'text/plain', text: 'TOP-SECRET-VALUE' }] };
    if (uri === 'test://note') return { contents: [{ uri, mimeType: 'text/plain', text: 'first part' }, { uri, mimeType: 'text/plain', text: 'second part' }] };
    if (uri === 'test://pixel') return { contents: [{ uri, mimeType: 'image/png', blob: PIXEL }] };
    if (uri === 'test://later') return { contents: [{ uri, text: 'added later' }] };
    throw new Error(`no resource ${uri}`);
  });
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({
    prompts: [
      { name: 'review', description: 'Review a file', arguments: [{ name: 'file', required: true }, { name: 'tone' }] },
      { name: 'inject', description: 'Text that mentions what is not its own' },
    ],
  }));
  server.setRequestHandler(GetPromptRequestSchema, async (request) => request.params.name === 'inject' ? {
    messages: [{ role: 'user', content: { type: 'text', text: process.env.MCP_TEST_PROMPT_TEXT ?? 'Summarise @vault:secret://x and @/inside.txt' } }],
  } : ({
    messages: [
      { role: 'user', content: { type: 'text', text: `Review ${request.params.arguments?.file} ${request.params.arguments?.tone ?? 'kindly'}.` } },
      { role: 'user', content: { type: 'resource', resource: { uri: 'test://note', mimeType: 'text/plain', text: 'the note' } } },
    ],
  }));
  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    const start = Number(request.params?.cursor ?? 0);
    const page = tools.slice(start, start + 3);
    return { tools: page, ...(start + 3 < tools.length ? { nextCursor: String(start + 3) } : {}) };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const args = request.params.arguments ?? {};
    switch (request.params.name) {
      case 'slow':
        log('slow started');
        return new Promise((resolve) => {
          const timer = setTimeout(() => resolve({ content: [{ type: 'text', text: 'slow done' }] }), Number(args.ms));
          extra.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            log(`cancelled ${String(extra.signal.reason ?? '')}`);
          });
        });
      case 'add_resource':
        if (!resources.some((r) => r.uri === 'test://later')) resources.push({ uri: 'test://later', name: 'later' });
        await server.sendResourceListChanged();
        return { content: [{ type: 'text', text: 'added' }] };
      case 'add_tool':
        if (!tools.some((t) => t.name === 'extra')) tools.push({ name: 'extra', description: 'Added later.', inputSchema: obj() });
        await server.sendToolListChanged();
        return { content: [{ type: 'text', text: 'added' }] };
      case 'peek':
        return { content: [{ type: 'text', text: 'peeked' }] };
      case 'big':
        return { content: [{ type: 'text', text: Array.from({ length: Math.ceil(Number(args.chars ?? 100000) / 50) }, (_, i) => `line ${i} `.padEnd(49, 'x')).join('\n') }] };
      case 'fail':
        return { content: [{ type: 'text', text: 'the widget store is closed' }], isError: true };
      case 'header':
        return { content: [{ type: 'text', text: `x-test: ${extra.requestInfo?.headers?.['x-test'] ?? '(none)'}` }] };
      case 'weather':
        return { content: [], structuredContent: { temperature: 21, sky: 'clear' } };
      case 'write':
        for (const [path, text] of Object.entries(args.files)) {
          mkdirSync(dirname(path), { recursive: true });
          writeFileSync(path, String(text));
        }
        return { content: [{ type: 'text', text: 'written' }] };
      case 'crash':
        process.stderr.write('test-server: crashing on request\n');
        process.exit(7);
        break;
      default:
        if (request.params.name.startsWith('tool_') || request.params.name === 'extra') return { content: [{ type: 'text', text: `${request.params.name} ran with ${JSON.stringify(args)}` }] };
        throw new Error(`unknown tool ${request.params.name}`);
    }
  });
  return server;
}

const httpAt = argv.indexOf('--http');
if (httpAt >= 0) {
  const port = Number(argv[httpAt + 1] ?? 0);
  const http = createServer(async (req, res) => {
    // Stateless: a server and transport per request.
    const server = makeServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close());
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  http.listen(port, '127.0.0.1', () => process.stdout.write(`listening ${http.address().port}\n`));
} else {
  const slowAt = argv.indexOf('--slow-start');
  if (slowAt >= 0) await new Promise((resolve) => setTimeout(resolve, Number(argv[slowAt + 1] ?? 0)));
  await makeServer().connect(new StdioServerTransport());
  process.stderr.write('test-server: ready\n');
}
