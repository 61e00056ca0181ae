// What only Deepdesk's server does with the store and the assistants (SPEC §19): the store is
// the memories store `deepdesk memories` reads, a key never leaves /memories/, another
// namespace is refused, the assistants are Settings' subagents and cannot be changed here.

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from '@langchain/langgraph-sdk';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openMemoriesStore } from '../../../core/backends/store/memory-store';
import { MemoriesService } from '../../memories/memories-service';
import { resolveAssistant } from './assistants-routes';
import type { ProtocolContext } from './context';
import { startProtocolHarness, type ProtocolHarness } from './testing/protocol-harness';

let h: ProtocolHarness;
let dataDir: string;
let context: ProtocolContext;
let client: Client;

beforeAll(async () => {
  h = await startProtocolHarness({ version: '9.9.9', settings: { subagents: [{ name: 'researcher', description: 'Looks things up.', systemPrompt: 'You research.' }] } });
  ({ dataDir, context, client } = h);
});

afterAll(async () => {
  await h.close();
});

/** The memories as `deepdesk memories` sees them. */
function memories(): MemoriesService {
  return new MemoriesService(openMemoriesStore(undefined, context.db, () => undefined).store, () => undefined);
}

async function send(method: string, path: string, body?: unknown, key: string | null = h.key): Promise<{ status: number; body: unknown }> {
  const response = await fetch(h.url + path, {
    method,
    headers: { 'content-type': 'application/json', ...(key !== null ? { 'x-api-key': key } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

describe('the store is the memories store', () => {
  test('an item put over the protocol is the memory /memories/KEY, and a memory written elsewhere is an item', async () => {
    await client.store.putItem(['memories'], 'projects/tides.md', { content: 'High tide at 6.' });
    expect((await memories().read('/memories/projects/tides.md')).text).toBe('High tide at 6.');
    await memories().write('/memories/from-window.md', 'Written in the window.');
    expect((await client.store.getItem(['memories'], 'from-window.md'))?.value).toEqual({ content: 'Written in the window.' });
    await client.store.deleteItem(['memories'], 'from-window.md');
    await expect(memories().read('/memories/from-window.md')).rejects.toThrow();
  });

  test('search with a query finds items by name or text, ignoring case; offset and limit page them', async () => {
    for (const name of ['q1.md', 'q2.md', 'q3.md']) await client.store.putItem(['memories'], `search/${name}`, { content: `The ZEBRA note ${name}` });
    await client.store.putItem(['memories'], 'search/other.md', { content: 'nothing to see' });
    const found = await client.store.searchItems(['memories'], { query: 'zebra', limit: 10 });
    expect(found.items.map((i) => i.key)).toEqual(['search/q1.md', 'search/q2.md', 'search/q3.md']);
    const page = await client.store.searchItems(['memories'], { query: 'zebra', limit: 1, offset: 1 });
    expect(page.items.map((i) => i.key)).toEqual(['search/q2.md']);
  });

  test('a key that leaves /memories/ is 422 and writes nothing, there or anywhere', async () => {
    await client.store.putItem(['memories'], 'keep.md', { content: 'kept' });
    await writeFile(join(dataDir, 'outside.md'), 'outside before');
    const before = await memories().list({ limit: 1000 });
    for (const key of ['../outside.md', '../../outside.md', '/keep.md', '/etc/passwd', 'a/../keep.md', 'nul\u0000.md', '', 'dir/', './keep.md', 'a\\..\\keep.md']) {
      const put = await send('PUT', '/store/items', { namespace: ['memories'], key, value: { content: 'overwritten' } });
      expect(put.status, key).toBe(422);
      expect(JSON.stringify(put.body)).toContain('/memories/');
      expect((await send('DELETE', '/store/items', { namespace: ['memories'], key })).status, key).toBe(422);
    }
    expect(await readFile(join(dataDir, 'outside.md'), 'utf8')).toBe('outside before');
    expect((await memories().read('/memories/keep.md')).text).toBe('kept');
    expect(await memories().list({ limit: 1000 })).toEqual(before);
  });

  test('a key with a control character (ESC, BEL, newline, C1 CSI) is 422 naming it, and writes nothing', async () => {
    const before = await memories().list({ limit: 1000 });
    for (const key of ['esc\u001b[31m.md', 'bell\u0007.md', 'two\nlines.md', 'tab\t.md', 'del\u007f.md', 'csi\u009b2J.md']) {
      const put = await send('PUT', '/store/items', { namespace: ['memories'], key, value: { content: 'x' } });
      expect(put.status, JSON.stringify(key)).toBe(422);
      expect((put.body as { detail: string }).detail).toContain(JSON.stringify(key));
      expect((await send('DELETE', '/store/items', { namespace: ['memories'], key })).status, JSON.stringify(key)).toBe(422);
    }
    expect(await memories().list({ limit: 1000 })).toEqual(before);
  });

  test('another namespace: a put or delete is 422 and writes nothing; a get is null, a search empty', async () => {
    const before = await memories().list({ limit: 1000 });
    expect((await send('PUT', '/store/items', { namespace: ['users', 'ann'], key: 'a.md', value: { content: 'x' } })).status).toBe(422);
    expect((await send('DELETE', '/store/items', { namespace: ['users'], key: 'keep.md' })).status).toBe(422);
    expect(await memories().list({ limit: 1000 })).toEqual(before);
    expect(await client.store.getItem(['users'], 'keep.md')).toBeNull();
    expect((await client.store.searchItems(['users'])).items).toEqual([]);
    expect((await client.store.listNamespaces({ prefix: ['users'] })).namespaces).toEqual([]);
    expect((await client.store.listNamespaces()).namespaces).toEqual([['memories']]);
  });

  test('a value without text is 422: the memory is {"content": TEXT}', async () => {
    const put = await send('PUT', '/store/items', { namespace: ['memories'], key: 'v.md', value: { text: 'no' } });
    expect(put.status).toBe(422);
    expect(JSON.stringify(put.body)).toContain('content');
  });

  test('the store needs the key; /ok and /info do not', async () => {
    expect((await send('POST', '/store/items/search', { namespace_prefix: ['memories'] }, null)).status).toBe(403);
    expect((await send('GET', '/ok', undefined, null)).body).toEqual({ ok: true });
    expect((await send('GET', '/info', undefined, null)).body).toMatchObject({ version: '9.9.9', flags: { assistants: true, crons: false } });
  });
});

describe('assistants', () => {
  test("Settings' subagents are assistants, found by graph id as a run's assistant_id names them", async () => {
    const all = await client.assistants.search();
    expect(all.map((a) => a.graph_id)).toEqual(['deepdesk', 'researcher']);
    const researcher = await client.assistants.get('researcher');
    expect(researcher).toMatchObject({ graph_id: 'researcher', name: 'researcher', description: 'Looks things up.' });
    expect(resolveAssistant(context, researcher.assistant_id).subagent?.systemPrompt).toBe('You research.');
    expect(resolveAssistant(context, 'deepdesk').subagent).toBeUndefined();
    expect(() => resolveAssistant(context, 'nobody')).toThrow('Assistant not found');
    expect(await client.assistants.count()).toBe(2);
    expect((await client.assistants.getSchemas('deepdesk')).graph_id).toBe('deepdesk');
  });

  test('a subagent added to Settings is an assistant at the next request', async () => {
    await writeFile(join(dataDir, 'settings.json'), JSON.stringify({ subagents: [{ name: 'writer', description: 'Writes.', systemPrompt: 'You write.' }] }));
    await expect.poll(async () => (await client.assistants.search()).map((a) => a.graph_id)).toEqual(['deepdesk', 'writer']);
  });

  test('assistants cannot be created, changed or deleted over the protocol (405, saying where they are kept)', async () => {
    for (const [method, path] of [
      ['POST', '/assistants'],
      ['PATCH', '/assistants/deepdesk'],
      ['DELETE', '/assistants/deepdesk'],
    ] as const) {
      const answer = await send(method, path, { graph_id: 'deepdesk' });
      expect(answer.status, `${method} ${path}`).toBe(405);
      expect(JSON.stringify(answer.body)).toContain('Settings');
    }
    expect((await client.assistants.search({ graphId: 'deepdesk' })).length).toBe(1);
  });
});
