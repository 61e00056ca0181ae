// What only Deepdesk's server does with the assistants (SPEC §19): they are Settings' subagents
// and cannot be changed here; the store needs the key (store-routes.test.ts has the store).

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from '@langchain/langgraph-sdk';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
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

async function send(method: string, path: string, body?: unknown, key: string | null = h.key): Promise<{ status: number; body: unknown }> {
  const response = await fetch(h.url + path, {
    method,
    headers: { 'content-type': 'application/json', ...(key !== null ? { 'x-api-key': key } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

describe('the key', () => {
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
