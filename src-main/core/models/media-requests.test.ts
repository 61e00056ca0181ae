// What each OpenAI-shaped server receives for media (SPEC §12): blocks of the types the model
// takes, in the place its API takes them, and the one-line notice for the rest — never a
// provider error. (Gemini: google.test.ts; Anthropic: anthropic.test.ts.)
import { afterEach, describe, expect, it } from 'vitest';
import { formatSize, notTakenNotice } from '../media/kinds';
import { makePdf, makePng, makeWav } from '../media/testing/fixtures';
import { collectResponse } from './collect';
import { createChatModel } from './create-model';
import { forgetRefusals } from './media-refusals';
import { startScriptedServer } from './testing/scripted-server';
import type { ScriptStep, ScriptedServer } from './testing/scripted-server';
import type { ChatMessage, ContentPart, ModelRequest } from './types';
import type { MediaKind } from '../media/kinds';

const servers: ScriptedServer[] = [];
afterEach(async () => {
  forgetRefusals();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function setup(spec: string, script: ScriptStep[], mediaOverride?: MediaKind[]) {
  const server = await startScriptedServer(script);
  servers.push(server);
  const model = createChatModel({ model: spec, baseUrl: server.url, apiKey: 'sk-test', env: {}, retry: { baseDelayMs: 1, maxDelayMs: 5 }, ...(mediaOverride ? { mediaInputOverrides: { [spec]: mediaOverride } } : {}) });
  return { server, model };
}

const b64 = (bytes: Buffer) => bytes.toString('base64');
const png = makePng(4, 4);
const pdf = makePdf(['first page', 'second page']);
const wav = makeWav(0.1);
const IMAGE: ContentPart = { type: 'image', mimeType: 'image/png', data: b64(png), name: '/pic.png', bytes: png.length };
const PDF: ContentPart = { type: 'file', mimeType: 'application/pdf', data: b64(pdf), name: '/doc.pdf', bytes: pdf.length };
const WAV: ContentPart = { type: 'file', mimeType: 'audio/wav', data: b64(wav), name: '/a.wav', bytes: wav.length };
const VIDEO: ContentPart = { type: 'file', mimeType: 'video/mp4', data: b64(Buffer.from('not really a video')), name: '/v.mp4', bytes: 18 };

/** A user message with media, then a read_file call whose result carries the same media. */
function withMedia(media: ContentPart[]): ModelRequest {
  const messages: ChatMessage[] = [
    { role: 'user', content: [{ type: 'text', text: 'look' }, ...media] },
    { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'read_file', args: { path: '/x' }, argsText: '{"path":"/x"}' }] },
    { role: 'tool', toolCallId: 'c1', toolName: 'read_file', content: [{ type: 'text', text: 'Files' }, ...media] },
  ];
  return { system: 'sys', messages, tools: [] };
}

const IMAGE_URL = { type: 'image_url', image_url: { url: `data:image/png;base64,${b64(png)}` } };
const PDF_FILE = { type: 'file', file: { filename: 'doc.pdf', file_data: `data:application/pdf;base64,${b64(pdf)}` } };
const WAV_AUDIO = { type: 'input_audio', input_audio: { data: b64(wav), format: 'wav' } };

describe('media in OpenAI Chat Completions requests', () => {
  it('openai: image, PDF and WAV go natively in a user message, and after a tool result in the next user message, each named', async () => {
    const { server, model } = await setup('openai:gpt-4.1', [{ text: 'ok' }]);
    await collectResponse(model.stream(withMedia([IMAGE, PDF, WAV])));
    const messages = server.requests[0]!.messages;
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'user']);
    expect(messages[1]?.content).toEqual([{ type: 'text', text: 'look' }, IMAGE_URL, PDF_FILE, WAV_AUDIO]);
    expect(messages[3]).toMatchObject({ tool_call_id: 'c1', content: 'Files\n[1 image, 1 document, 1 audio file attached in the next message]' });
    expect(messages[4]?.content).toEqual([
      { type: 'text', text: `Image /pic.png (image/png, ${png.length} B) returned by read_file (call c1):` },
      IMAGE_URL,
      { type: 'text', text: `Document /doc.pdf (application/pdf, ${formatSize(pdf.length)}) returned by read_file (call c1):` },
      PDF_FILE,
      { type: 'text', text: `Audio file /a.wav (audio/wav, ${formatSize(wav.length)}) returned by read_file (call c1):` },
      WAV_AUDIO,
    ]);
  });

  it('openai-compatible: images go; PDF and WAV become the §12 notice, in the user message and the tool result', async () => {
    const { server, model } = await setup('openai-compatible:qwen3', [{ text: 'ok' }]);
    await collectResponse(model.stream(withMedia([IMAGE, PDF, WAV])));
    const messages = server.requests[0]!.messages;
    const pdfNotice = notTakenNotice('document', '/doc.pdf', pdf.length);
    const wavNotice = notTakenNotice('audio', '/a.wav', wav.length);
    expect(messages[1]?.content).toEqual([{ type: 'text', text: 'look' }, IMAGE_URL, { type: 'text', text: pdfNotice }, { type: 'text', text: wavNotice }]);
    expect(messages[3]).toMatchObject({ role: 'tool', content: `Files\n${pdfNotice}\n${wavNotice}\n[1 image attached in the next message]` });
    expect(messages[4]?.content).toEqual([{ type: 'text', text: `Image /pic.png (image/png, ${png.length} B) returned by read_file (call c1):` }, IMAGE_URL]);
    expect(JSON.stringify(server.requests[0])).not.toContain(b64(wav));
  });

  it('a server that refuses images (llama.cpp without its mmproj): the image becomes the notice, the request goes once more, and the model remembers', async () => {
    const refusal = { error: { status: 500, body: { error: { code: 500, message: 'image input is not supported - hint: if this is unexpected, you may need to provide the mmproj', type: 'server_error' } } } };
    const { server, model } = await setup('openai-compatible:gemma3', [refusal, { text: 'I cannot see it' }, { text: 'again' }]);
    const result = await collectResponse(model.stream(withMedia([IMAGE])));
    expect(result.text).toBe('I cannot see it');
    expect(server.requests).toHaveLength(2);
    const notice = notTakenNotice('image', '/pic.png', png.length);
    expect(server.requests[1]!.messages[1]?.content).toEqual([{ type: 'text', text: 'look' }, { type: 'text', text: notice }]);
    expect(server.requests[1]!.messages[3]).toMatchObject({ role: 'tool', content: `Files\n${notice}` });
    expect(model.mediaInput).toEqual([]);

    // Another model object for the same server and model (a new thread) knows it too.
    const again = createChatModel({ model: 'openai-compatible:gemma3', baseUrl: server.url, env: {} });
    expect(again.mediaInput).toEqual([]);
    await collectResponse(again.stream(withMedia([IMAGE])));
    expect(server.requests).toHaveLength(3);
  });

  it('an OpenAI-compatible model whose Settings override says it takes video gets the video, and audio as the notice', async () => {
    const { server, model } = await setup('openai-compatible:omni', [{ text: 'ok' }], ['image', 'video']);
    await collectResponse(model.stream(withMedia([IMAGE, VIDEO, WAV])));
    expect(server.requests[0]!.messages[1]?.content).toEqual([
      { type: 'text', text: 'look' },
      IMAGE_URL,
      { type: 'video_url', video_url: { url: `data:video/mp4;base64,${VIDEO.data}` } },
      { type: 'text', text: notTakenNotice('audio', '/a.wav', wav.length) },
    ]);
  });

  it('an ordinary 400 is still an error, not a media refusal (after one try without the media, which might have been rejected)', async () => {
    const bad = { error: { status: 400, body: { error: { message: 'bad temperature', type: 'invalid_request_error' } } } };
    const { server, model } = await setup('openai-compatible:qwen3', [bad, bad]);
    await expect(collectResponse(model.stream(withMedia([IMAGE])))).rejects.toThrow(/bad temperature/);
    expect(server.requests).toHaveLength(2);
    expect(JSON.stringify(server.requests[1])).not.toContain(IMAGE.data);
    expect(model.mediaInput).toContain('image/png');
  });
});

describe('media and reasoning in OpenAI Responses requests', () => {
  it('sends images and PDFs inside function_call_output, WAV as the notice, and reasoning items back with their encrypted content', async () => {
    const calls: Array<Record<string, unknown>> = [];
    const fetch = (async (_input: RequestInfo | URL, init?: RequestInit) => {
      calls.push(JSON.parse(String(init?.body)) as Record<string, unknown>);
      return new Response(JSON.stringify({ error: { message: 'stop here', type: 'invalid_request_error' } }), { status: 400, headers: { 'content-type': 'application/json' } });
    }) as typeof globalThis.fetch;
    const model = createChatModel({ model: 'openai:gpt-5-codex', apiKey: 'k', env: {}, fetch });
    const request = withMedia([IMAGE, PDF, WAV]);
    request.messages[1] = {
      role: 'assistant',
      content: '',
      provider: 'openai',
      reasoning: [{ text: 'think', providerMetadata: { openai: { itemId: 'rs_1', reasoningEncryptedContent: 'enc-1' } } }],
      toolCalls: [{ id: 'c1', name: 'read_file', args: { path: '/x' }, argsText: '{"path":"/x"}', providerMetadata: { openai: { itemId: 'fc_1' } } }],
    };
    await collectResponse(model.stream(request)).catch(() => undefined);
    const body = calls[0]!;
    expect(body.include).toEqual(['reasoning.encrypted_content']);
    const input = body.input as Array<Record<string, unknown>>;
    const reasoning = input.find((item) => item.type === 'reasoning');
    expect(reasoning).toMatchObject({ encrypted_content: 'enc-1' });
    const output = input.find((item) => item.type === 'function_call_output');
    expect(output?.output).toEqual([
      { type: 'input_text', text: 'Files' },
      { type: 'input_image', image_url: `data:image/png;base64,${b64(png)}` },
      { type: 'input_file', filename: 'doc.pdf', file_data: `data:application/pdf;base64,${b64(pdf)}` },
      { type: 'input_text', text: notTakenNotice('audio', '/a.wav', wav.length) },
    ]);
  });
});
