// Every model the session builds follows Settings as they are now (issue 97): after Settings ›
// Model › Base URL changes, the reviewer (of a run that is going and of the next), the main
// model and a model named by spec (a subagent's, the grader's) call the new address, two real
// scripted servers telling which one each call reached.

import { afterEach, describe, expect, it } from 'vitest';
import { collectResponse } from '../../core/models/collect';
import { startScriptedServer, type ScriptedServer } from '../../core/models/testing/scripted-server';
import type { ChatModel } from '../../core/models/types';
import type { Settings } from '../contract';
import { runReviewer } from './run-reviewer';
import { sessionModels } from './session-models';

const servers: ScriptedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function server(): Promise<ScriptedServer> {
  const s = await startScriptedServer(Array.from({ length: 10 }, () => ({ text: 'ok' })));
  servers.push(s);
  return s;
}

const ask = async (model: ChatModel): Promise<void> => {
  await collectResponse(model.stream({ system: 's', messages: [{ role: 'user', content: 'hi' }], tools: [], maxOutputTokens: 8, signal: AbortSignal.timeout(10_000) }));
};

describe('models follow Settings now, not a copy made earlier', () => {
  it('after the base URL changes, the reviewer, the main model and a named model call the new address', async () => {
    const [a, b] = [await server(), await server()];
    let saved: Pick<Settings, 'model' | 'baseUrl' | 'reviewer'> = { model: 'openai-compatible:agent', baseUrl: a.url, reviewer: { model: 'openai-compatible:judge' } };
    const models = sessionModels({ flags: {}, env: {}, settings: () => saved, apiKeyFor: async () => undefined, wording: 'window' });
    const reviewerOf = runReviewer(models, () => saved, undefined, '/folder');
    const running = reviewerOf(await models.main(), undefined)!;
    await ask(await running.model());
    expect(a.requests.map((r) => r.model)).toEqual(['judge']);

    saved = { ...saved, baseUrl: b.url };
    // The run that is going: its next review.
    await ask(await running.model());
    // The next run's reviewer, with the thread's own model too.
    await ask(await reviewerOf(await models.main(), 'thread')!.model());
    await ask(await models.main());
    await ask(await models.named('openai-compatible:subagent'));
    expect(b.requests.map((r) => r.model)).toEqual(['judge', 'agent', 'agent', 'subagent']);
    expect(a.requests).toHaveLength(1);
  });
});
