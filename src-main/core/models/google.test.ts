import { afterEach, describe, expect, it } from 'vitest';
import { notTakenNotice } from '../media/kinds';
import { makePdf, makePng, makeWav } from '../media/testing/fixtures';
import { collectResponse } from './collect';
import { createChatModel } from './create-model';
import { ModelConfigError } from './errors';
import { forgetRefusals } from './media-refusals';
import { startScriptedGeminiServer } from './testing/scripted-gemini-server';
import type { GeminiStep, ScriptedGeminiServer } from './testing/scripted-gemini-server';
import type { ChatMessage, ContentPart, ModelRequest } from './types';

const servers: ScriptedGeminiServer[] = [];
afterEach(async () => {
  forgetRefusals();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function setup(script: GeminiStep[], model = 'google:gemini-2.5-flash', env: NodeJS.ProcessEnv = { GEMINI_API_KEY: 'gem-key' }) {
  const server = await startScriptedGeminiServer(script);
  servers.push(server);
  return { server, model: createChatModel({ model, baseUrl: server.url, env, retry: { baseDelayMs: 1, maxDelayMs: 5 } }) };
}

const TOOLS = [{ name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } }];

function request(messages: ChatMessage[]): ModelRequest {
  return { system: 'You are a test.', messages, tools: TOOLS };
}

const SIGNED_CALL: GeminiStep = {
  parts: [
    { text: 'Looking for the file.', thought: true, thoughtSignature: 'sig-0' },
    { text: 'I will read it.' },
    { functionCall: { name: 'read_file', args: { path: '/a.txt' } }, thoughtSignature: 'sig-1' },
  ],
};

const b64 = (bytes: Buffer) => bytes.toString('base64');
const png = makePng(4, 4);
const pdf = makePdf(['first page', 'second page']);
const wav = makeWav(0.1);
const MEDIA: ContentPart[] = [
  { type: 'image', mimeType: 'image/png', data: b64(png), name: '/pic.png', bytes: png.length },
  { type: 'file', mimeType: 'application/pdf', data: b64(pdf), name: '/doc.pdf', bytes: pdf.length },
  { type: 'file', mimeType: 'audio/wav', data: b64(wav), name: '/a.wav', bytes: wav.length },
];

describe('the google provider against a scripted Gemini server', () => {
  it('streams thoughts, text and a function call, keeping their thought signatures', async () => {
    const { server, model } = await setup([SIGNED_CALL]);
    const result = await collectResponse(model.stream(request([{ role: 'user', content: 'read /a.txt' }])));

    expect(result.reasoning).toBe('Looking for the file.');
    expect(result.reasoningParts).toEqual([{ text: 'Looking for the file.', providerMetadata: { google: { thoughtSignature: 'sig-0' } } }]);
    expect(result.text).toBe('I will read it.');
    expect(result.toolCalls).toMatchObject([{ name: 'read_file', args: { path: '/a.txt' }, providerMetadata: { google: { thoughtSignature: 'sig-1' } } }]);
    expect(result.stopReason).toBe('tool-calls');
    expect(server.requests[0]).toMatchObject({ model: 'gemini-2.5-flash', apiKey: 'gem-key' });
    expect(server.requests[0]?.body.systemInstruction).toEqual({ parts: [{ text: 'You are a test.' }] });
    expect(server.requests[0]?.body.contents).toEqual([{ role: 'user', parts: [{ text: 'read /a.txt' }] }]);
    expect(server.requests[0]?.body.generationConfig).toMatchObject({ thinkingConfig: { includeThoughts: true } });
  });

  it('asks only thinking models (2.5, 3) for their thoughts', async () => {
    const { server, model } = await setup([{ parts: [{ text: 'ok' }] }], 'google:gemini-2.0-flash');
    await collectResponse(model.stream(request([{ role: 'user', content: 'hi' }])));
    expect(JSON.stringify(server.requests[0]?.body)).not.toContain('thinkingConfig');
  });

  it('sends the signatures back from a history that went through JSON, as a stored thread does', async () => {
    const { server, model } = await setup([SIGNED_CALL, { parts: [{ text: 'It says hi.' }] }]);
    const first = await collectResponse(model.stream(request([{ role: 'user', content: 'read /a.txt' }])));
    const history: ChatMessage[] = [
      { role: 'user', content: 'read /a.txt' },
      { role: 'assistant', content: first.text, toolCalls: first.toolCalls, provider: 'google', reasoning: first.reasoningParts, ...(first.textMetadata ? { textMetadata: first.textMetadata } : {}) },
      { role: 'tool', toolCallId: first.toolCalls[0]!.id, toolName: 'read_file', content: 'hi' },
    ];
    const reloaded = JSON.parse(JSON.stringify(history)) as ChatMessage[];

    const second = await collectResponse(model.stream(request(reloaded)));
    expect(second.text).toBe('It says hi.');
    const modelTurn = server.requests[1]?.body.contents[1];
    expect(modelTurn?.role).toBe('model');
    expect(modelTurn?.parts).toEqual([
      { text: 'Looking for the file.', thought: true, thoughtSignature: 'sig-0' },
      { text: 'I will read it.' },
      { functionCall: { id: first.toolCalls[0]!.id, name: 'read_file', args: { path: '/a.txt' } }, thoughtSignature: 'sig-1' },
    ]);
    expect(server.requests[1]?.body.contents[2]?.parts[0]).toMatchObject({ functionResponse: { name: 'read_file' } });
  });

  it('keeps a signature Gemini puts on the answer text (an empty signed part) and sends it back on that text', async () => {
    const { server, model } = await setup([{ parts: [{ text: 'Answer.' }, { text: '', thoughtSignature: 'sig-t' }] }, { parts: [{ text: 'ok' }] }]);
    const first = await collectResponse(model.stream(request([{ role: 'user', content: 'q' }])));
    expect(first.text).toBe('Answer.');
    expect(first.textMetadata).toEqual({ google: { thoughtSignature: 'sig-t' } });
    const history = JSON.parse(JSON.stringify([
      { role: 'user', content: 'q' },
      { role: 'assistant', content: first.text, provider: 'google', textMetadata: first.textMetadata },
      { role: 'user', content: 'and?' },
    ])) as ChatMessage[];
    await collectResponse(model.stream(request(history)));
    expect(server.requests[1]?.body.contents[1]).toEqual({ role: 'model', parts: [{ text: 'Answer.', thoughtSignature: 'sig-t' }] });
  });

  it('sends no reasoning or signatures that another provider wrote', async () => {
    const { server, model } = await setup([{ parts: [{ text: 'ok' }] }]);
    await collectResponse(
      model.stream(
        request([
          { role: 'user', content: 'hi' },
          {
            role: 'assistant',
            content: 'Sure.',
            provider: 'anthropic',
            reasoning: [{ text: 'secret thinking', providerMetadata: { anthropic: { signature: 'ant-sig' } } }],
            toolCalls: [{ id: 't1', name: 'read_file', args: { path: '/x' }, argsText: '{"path":"/x"}', providerMetadata: { google: { thoughtSignature: 'stale' } } }],
          },
          { role: 'tool', toolCallId: 't1', toolName: 'read_file', content: 'x' },
        ]),
      ),
    );
    expect(server.requests[0]?.body.contents[1]?.parts).toEqual([{ text: 'Sure.' }, { functionCall: { id: 't1', name: 'read_file', args: { path: '/x' } } }]);
  });

  it('sends images, PDFs and audio natively, in a user message and inside a function response', async () => {
    const { server, model } = await setup([{ parts: [{ text: 'seen' }] }]);
    await collectResponse(
      model.stream(
        request([
          { role: 'user', content: [{ type: 'text', text: 'look' }, ...MEDIA] },
          { role: 'assistant', content: '', provider: 'google', toolCalls: [{ id: 'c1', name: 'read_file', args: { path: '/pic.png' }, argsText: '{}' }] },
          { role: 'tool', toolCallId: 'c1', toolName: 'read_file', content: [{ type: 'text', text: 'Three files' }, ...MEDIA] },
        ]),
      ),
    );
    const contents = server.requests[0]!.body.contents;
    expect(contents[0]?.parts).toEqual([
      { text: 'look' },
      { inlineData: { mimeType: 'image/png', data: b64(png) } },
      { inlineData: { mimeType: 'application/pdf', data: b64(pdf) } },
      { inlineData: { mimeType: 'audio/wav', data: b64(wav) } },
    ]);
    const sent = JSON.stringify(contents[2]);
    expect(contents[2]?.parts[0]).toMatchObject({ functionResponse: { name: 'read_file' } });
    for (const [mime, data] of [['image/png', b64(png)], ['application/pdf', b64(pdf)], ['audio/wav', b64(wav)]]) {
      expect(sent).toContain(JSON.stringify({ mimeType: mime, data }).slice(1, -1));
    }
    // Everything went inside the function response: no extra user message.
    expect(contents).toHaveLength(3);
  });

  it('replaces media a refusal names by the notice, remembers it, and goes on', async () => {
    const { server, model } = await setup([{ error: { status: 400, message: 'Unsupported MIME type: audio/wav' } }, { parts: [{ text: 'fine' }] }, { parts: [{ text: 'again' }] }]);
    const messages: ChatMessage[] = [{ role: 'user', content: [{ type: 'text', text: 'listen' }, MEDIA[0]!, MEDIA[2]!] }];
    const result = await collectResponse(model.stream(request(messages)));
    expect(result.text).toBe('fine');
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]?.body.contents[0]?.parts).toEqual([
      { text: 'listen' },
      { inlineData: { mimeType: 'image/png', data: b64(png) } },
      { text: notTakenNotice('audio', '/a.wav', wav.length) },
    ]);
    // Remembered: the next request sends the notice at once, and read_file learns it from mediaInput.
    expect(model.mediaInput?.some((mime) => mime.startsWith('audio/'))).toBe(false);
    await collectResponse(model.stream(request(messages)));
    expect(server.requests).toHaveLength(3);
    expect(JSON.stringify(server.requests[2]?.body)).not.toContain('audio/wav');
  });

  it('takes the key from GOOGLE_GENERATIVE_AI_API_KEY first, accepts google_genai:, and names both variables when there is none', async () => {
    const { server, model } = await setup([{ parts: [{ text: 'ok' }] }], 'google_genai:gemini-3-pro-preview', { GOOGLE_GENERATIVE_AI_API_KEY: 'g1', GEMINI_API_KEY: 'g2' });
    expect(model.id).toBe('google:gemini-3-pro-preview');
    expect(model.contextWindow).toBe(1_048_576);
    await collectResponse(model.stream(request([{ role: 'user', content: 'hi' }])));
    expect(server.requests[0]).toMatchObject({ model: 'gemini-3-pro-preview', apiKey: 'g1' });

    let error: unknown;
    try {
      createChatModel({ model: 'google:gemini-2.5-pro', env: {} });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ModelConfigError);
    expect((error as Error).message).toBe('No API key for google: set GOOGLE_GENERATIVE_AI_API_KEY or GEMINI_API_KEY or pass --api-key');
  });
});

