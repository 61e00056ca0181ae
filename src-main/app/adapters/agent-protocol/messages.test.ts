import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../core/models/types';
import { ProtocolHttpError } from './http';
import { lastPersonMessage, messageId, toLangChainMessages } from './messages';

/** As the reference server writes a LangChain message into a `values` event (utils/serde.mjs). */
function referenceDict(message: { toDict(): { type: string; data: object } }): unknown {
  const { type, data } = message.toDict();
  return JSON.parse(JSON.stringify({ ...data, type })) as unknown;
}

const thread: ChatMessage[] = [
  { role: 'user', content: 'list the files' },
  { role: 'assistant', content: 'Looking.', toolCalls: [{ id: 'c1', name: 'ls', args: { path: '/' }, argsText: '{"path":"/"}' }] },
  { role: 'tool', toolCallId: 'c1', toolName: 'ls', content: 'a.txt' },
  { role: 'assistant', content: 'One file: a.txt.' },
];

describe('toLangChainMessages', () => {
  it('writes each message as the reference server serialises the LangChain message', () => {
    const out = toLangChainMessages('t1', thread);
    expect(out.map((m) => m.id)).toEqual(['t1:0', 't1:1', 't1:2', 't1:3']);
    expect(out[0]).toEqual(referenceDict(new HumanMessage({ content: 'list the files', id: 't1:0' })));
    expect(out[1]).toEqual(referenceDict(new AIMessage({ content: 'Looking.', id: 't1:1', tool_calls: [{ name: 'ls', args: { path: '/' }, id: 'c1', type: 'tool_call' }] })));
    expect(out[2]).toEqual(referenceDict(new ToolMessage({ content: 'a.txt', tool_call_id: 'c1', name: 'ls', id: 't1:2', status: 'success' })));
    expect(out[3]).toEqual(referenceDict(new AIMessage({ content: 'One file: a.txt.', id: 't1:3' })));
  });

  it('keeps ids stable and slices by index', () => {
    expect(toLangChainMessages('t1', thread, 2, 3)).toEqual([toLangChainMessages('t1', thread)[2]]);
    expect(messageId('t1', 7)).toBe('t1:7');
  });

  it('writes media as standard content blocks, a failed tool as status error, a bad call as invalid, a note as system', () => {
    const out = toLangChainMessages('t', [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'see' },
          { type: 'image', mimeType: 'image/png', data: 'AAAA', name: 'shot.png' },
          { type: 'file', mimeType: 'application/pdf', data: 'BBBB', name: 'doc.pdf' },
          { type: 'file', mimeType: 'audio/wav', data: 'CCCC' },
        ],
      },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c2', name: 'edit_file', args: {}, argsText: '{oops', parseError: 'Unexpected token' }] },
      { role: 'tool', toolCallId: 'c2', toolName: 'edit_file', content: 'bad arguments', isError: true },
      { role: 'user', content: 'The person restored files.', note: { id: 'n1', kind: 'restore', display: 'Restored' } },
    ]);
    expect(out[0]!.content).toEqual([
      { type: 'text', text: 'see' },
      { type: 'image', mimeType: 'image/png', data: 'AAAA', metadata: { name: 'shot.png' } },
      { type: 'file', mimeType: 'application/pdf', data: 'BBBB', metadata: { filename: 'doc.pdf' } },
      { type: 'audio', mimeType: 'audio/wav', data: 'CCCC' },
    ]);
    expect(out[1]).toMatchObject({ type: 'ai', tool_calls: [], invalid_tool_calls: [{ name: 'edit_file', args: '{oops', id: 'c2', error: 'Unexpected token', type: 'invalid_tool_call' }] });
    expect(out[2]).toMatchObject({ type: 'tool', status: 'error', tool_call_id: 'c2', name: 'edit_file' });
    expect(out[3]).toMatchObject({ type: 'system', content: 'The person restored files.' });
  });
});

describe('lastPersonMessage', () => {
  it("takes the last of the person's messages, as dicts with type or role, strings, or LangChain-serialised", () => {
    expect(lastPersonMessage([{ type: 'human', content: 'hello' }])).toEqual({ prompt: 'hello', attachments: [] });
    expect(lastPersonMessage([{ role: 'user', content: 'from a subagent' }]).prompt).toBe('from a subagent');
    expect(lastPersonMessage([{ role: 'system', content: 'ignored' }, 'first', { role: 'assistant', content: 'also ignored' }, { type: 'user', content: 'second' }, { type: 'ai', content: 'x' }]).prompt).toBe('second');
    expect(lastPersonMessage(['first', JSON.parse(JSON.stringify(new HumanMessage('serialised')))]).prompt).toBe('serialised');
    expect(lastPersonMessage({ role: 'user', content: 'one, not a list' }).prompt).toBe('one, not a list');
  });

  it('takes inline media as attachments', () => {
    const png = Buffer.from('png-bytes').toString('base64');
    const got = lastPersonMessage([
      {
        type: 'human',
        content: [
          { type: 'text', text: 'what is in these?' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } },
          { type: 'image', source_type: 'base64', mime_type: 'image/jpeg', data: png, metadata: { name: 'a.jpg' } },
          { type: 'file', mimeType: 'application/pdf', data: png, metadata: { filename: 'b.pdf' } },
        ],
      },
    ]);
    expect(got.prompt).toBe('what is in these?');
    expect(got.attachments).toEqual([
      { name: 'attachment-2.png', mimeType: 'image/png', data: png },
      { name: 'a.jpg', mimeType: 'image/jpeg', data: png },
      { name: 'b.pdf', mimeType: 'application/pdf', data: png },
    ]);
  });

  it('answers 422 naming the field for what it cannot take', () => {
    const problem = (input: unknown): string => {
      try {
        lastPersonMessage(input);
      } catch (err) {
        expect(err).toBeInstanceOf(ProtocolHttpError);
        expect((err as ProtocolHttpError).status).toBe(422);
        return (err as Error).message;
      }
      throw new Error('no error');
    };
    expect(problem([{ type: 'human', content: [{ type: 'image_url', image_url: 'https://example.com/a.png' }] }])).toMatch(/^input\.messages\[0\]\.content\[0\]\.image_url: /);
    expect(problem([{ type: 'human', content: [{ type: 'text', text: 1 }] }])).toMatch(/^input\.messages\[0\]\.content\[0\]\.text: /);
    expect(problem([{ type: 'robot', content: 'x' }])).toMatch(/^input\.messages\[0\]\.type: /);
    expect(problem([{ content: 'x' }])).toMatch(/^input\.messages\[0\]: /);
    expect(problem([{ type: 'ai', content: 'only the model' }])).toMatch(/^input\.messages: /);
    expect(problem([{ type: 'human', content: 3 }])).toMatch(/^input\.messages\[0\]\.content: /);
    // An entry before the last person's message is checked too, and the field names the entry's own place.
    expect(problem([{ type: 'robot', content: 'x' }, { type: 'human', content: 'ok' }])).toMatch(/^input\.messages\[0\]\.type: /);
    expect(problem(['first', { type: 'human', content: [{ type: 'text', text: '' }] }])).toMatch(/^input\.messages\[1\]\.content: has no text or media/);
    expect(problem([{ type: 'human', content: Array.from({ length: 11 }, () => ({ type: 'image', mimeType: 'image/png', data: 'AAAA' })) }])).toMatch(/^input\.messages\[0\]\.content: /);
  });
});
