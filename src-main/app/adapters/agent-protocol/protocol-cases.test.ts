// The protocol cases (testing/protocol-cases.ts) against the reference LangGraph server, to
// keep them honest, and against Deepdesk's: both must pass every one.

import { afterAll, beforeAll, describe, test } from 'vitest';
import { PROTOCOL_CASES, type CaseTarget } from './testing/protocol-cases';
import { startProtocolHarness, type ProtocolHarness } from './testing/protocol-harness';
import { startReferenceServer, type ReferenceServer } from './testing/reference-server';

const cases = PROTOCOL_CASES.map((c) => [c.name, c] as const);

describe('the reference LangGraph server', () => {
  let reference: ReferenceServer;
  const target = {} as CaseTarget;
  beforeAll(async () => {
    reference = await startReferenceServer();
    Object.assign(target, { url: reference.url, model: reference.model, files: reference.files, waitingRunStatus: 'success' });
  });
  afterAll(async () => reference.close());

  test.for(cases)('%s', async ([, c]) => {
    await c.run(target);
  });
});

describe("Deepdesk's server", () => {
  let h: ProtocolHarness;
  const target = {} as CaseTarget;
  beforeAll(async () => {
    // Review off: a put is active at once, as the reference's (store-routes.test.ts has the proposals).
    h = await startProtocolHarness({ settings: { memories: { review: 'off' } } });
    Object.assign(target, { url: h.url, apiKey: h.key, model: h.scripted, files: h.files, waitingRunStatus: 'interrupted' });
  });
  afterAll(async () => h.close());

  test.for(cases)('%s', async ([, c]) => {
    await c.run(target);
  });
});
