// A provider that rejects one attachment (issue 37: "Could not process image" for a file that
// is not the image it claims) never wedges the thread: the rejected blocks become a text
// stand-in and the call goes once more, and the next message of the same history is answered
// without sending them again. An error that is not about the attachments is still an error.
import { afterEach, describe, expect, it } from 'vitest';
import { makePng } from '../media/testing/fixtures';
import { collectResponse } from './collect';
import { createChatModel } from './create-model';
import { forgetRefusals } from './media-refusals';
import { anthropicMessageStream, startScriptedAnthropicServer } from './testing/scripted-anthropic-server';
import type { AnthropicReply, ScriptedAnthropicServer } from './testing/scripted-anthropic-server';
import type { ChatMessage, ContentPart } from './types';

const fakes: ScriptedAnthropicServer[] = [];
afterEach(async () => {
  forgetRefusals();
  await Promise.all(fakes.splice(0).map((fake) => fake.close()));
});

async function setup(replies: AnthropicReply[]) {
  const fake = await startScriptedAnthropicServer(replies);
  fakes.push(fake);
  const model = createChatModel({ model: 'anthropic:claude-sonnet-4-5', baseUrl: fake.url, apiKey: 'sk-ant-test', env: {}, retry: { baseDelayMs: 1, maxDelayMs: 5 } });
  return { fake, model };
}

const png = makePng(4, 4);
const good = makePng(2, 2);
const SHOT: ContentPart = { type: 'image', mimeType: 'image/png', data: png.toString('base64'), name: '/shot.png', bytes: png.length };
const rejected = (message: string): AnthropicReply => ({ status: 400, json: { type: 'error', error: { type: 'invalid_request_error', message } } });
const answer = (text: string) => anthropicMessageStream([{ text }], 'end_turn');

const history: ChatMessage[] = [
  { role: 'user', content: 'look at the screenshot' },
  { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'read_file', args: { file_path: '/shot.png' }, argsText: '{"file_path":"/shot.png"}' }] },
  { role: 'tool', toolCallId: 'c1', toolName: 'read_file', content: [{ type: 'text', text: 'Image file /shot.png (image/png, 1 KB)' }, SHOT] },
];
const sent = (body: Record<string, unknown> | undefined) => JSON.stringify(body);

describe('a provider that rejects an attachment', () => {
  it('the rejected image becomes a stand-in, the call goes once more, and the next message is answered without it', async () => {
    const { fake, model } = await setup([rejected('messages.2.content.1.image.source.base64: Could not process image'), answer('It is not an image.'), answer('Next answer.')]);
    const first = await collectResponse(model.stream({ system: 'sys', messages: history, tools: [] }));
    expect(first.text).toBe('It is not an image.');
    expect(fake.bodies).toHaveLength(2);
    expect(sent(fake.bodies[0])).toContain(SHOT.data);
    expect(sent(fake.bodies[1])).not.toContain(SHOT.data);
    expect(sent(fake.bodies[1])).toContain('[image /shot.png was not sent: the provider refused it (Could not process image)]');

    const next = await collectResponse(model.stream({ system: 'sys', messages: [...history, { role: 'assistant', content: first.text }, { role: 'user', content: 'and now?' }], tools: [] }));
    expect(next.text).toBe('Next answer.');
    expect(fake.bodies).toHaveLength(3);
    expect(sent(fake.bodies[2])).not.toContain(SHOT.data);
  });

  it('another image of the same thread still goes: only the blocks of the rejected request are stood in for', async () => {
    const { fake, model } = await setup([rejected('Could not process image'), answer('ok'), answer('I see it.')]);
    await collectResponse(model.stream({ system: 'sys', messages: history, tools: [] }));
    const other: ContentPart = { type: 'image', mimeType: 'image/png', data: good.toString('base64'), name: '/good.png', bytes: good.length };
    await collectResponse(model.stream({ system: 'sys', messages: [...history, { role: 'assistant', content: 'ok' }, { role: 'user', content: [{ type: 'text', text: 'this one' }, other] }], tools: [] }));
    expect(sent(fake.bodies[2])).toContain(other.data);
    expect(sent(fake.bodies[2])).not.toContain(SHOT.data);
  });

  it('an error that is not about the attachments is still an error after one try without them', async () => {
    const { fake, model } = await setup([rejected('temperature: must be at most 1'), rejected('temperature: must be at most 1')]);
    await expect(collectResponse(model.stream({ system: 'sys', messages: history, tools: [] }))).rejects.toThrow(/temperature/);
    expect(fake.bodies).toHaveLength(2);
  });

  it('a 400 on a request without media is an error at once', async () => {
    const { fake, model } = await setup([rejected('temperature: must be at most 1')]);
    await expect(collectResponse(model.stream({ system: 'sys', messages: [{ role: 'user', content: 'hi' }], tools: [] }))).rejects.toThrow(/temperature/);
    expect(fake.bodies).toHaveLength(1);
  });
});
