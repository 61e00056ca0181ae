// issue 9 §7: the app's own secrets never reach a command the agent runs. Checked through
// a real execute of `env` in a real pty.

import { afterEach, beforeEach, expect, it } from 'vitest';
import { createChatModel } from '../models/create-model';
import { createTestWorkspace, type TestWorkspace } from '../tools/test-workspace.test-support';
import { withholdFromCommands } from './app-secrets';
import { sanitizeEnv } from './shell-env';

const PLANTED: Record<string, string> = {
  OPENAI_API_KEY: 'sk-openai-planted-0001',
  ANTHROPIC_API_KEY: 'sk-ant-planted-0002',
  ANTHROPIC_AUTH_TOKEN: 'ant-token-planted-0003',
  GEMINI_API_KEY: 'gemini-planted-0004',
  groq_api_key: 'groq-planted-0005',
  DEEPDESK_HOME: '/planted/deepdesk-home',
  DEEPDESK_MODEL: 'openai:planted-model',
  __DEEPDESK_INTERNAL: 'planted-internal-0006',
  // Not secret by name, but carrying the key the app was given by its settings or a flag.
  MY_PROXY_HEADER: 'Bearer sk-settings-planted-0007',
  KEEP_ME: 'ordinary-value',
};

let ws: TestWorkspace;
const saved: Record<string, string | undefined> = {};

beforeEach(() => {
  for (const [key, value] of Object.entries(PLANTED)) {
    saved[key] = process.env[key];
    process.env[key] = value;
  }
  ws = createTestWorkspace();
});
afterEach(() => {
  ws.dispose();
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

it('a real `env` run by the agent shows none of the app\'s keys or internals, and keeps the rest', async () => {
  // The key the app uses for its model (e.g. from settings or --api-key).
  createChatModel({ model: 'openai:gpt-4.1', apiKey: 'sk-settings-planted-0007' });
  const out = await ws.run('execute', { command: 'env; echo "[$OPENAI_API_KEY]"' });
  expect(out).toContain('[Command succeeded with exit code 0]');
  for (const [key, value] of Object.entries(PLANTED)) {
    if (key === 'KEEP_ME') continue;
    expect(out, key).not.toContain(value);
    expect(out, key).not.toMatch(new RegExp(`^${key}=`, 'm'));
  }
  expect(out).toContain('[]');
  expect(out).toContain('KEEP_ME=ordinary-value');
});

it('withholds by name pattern and by value', () => {
  withholdFromCommands('value-registered-1234');
  const env = sanitizeEnv({ X_API_KEY: 'a', Mistral_Api_Key: 'b', DEEPDESK_TERMINAL_DEBUG: '/f', OTHER: 'has value-registered-1234 inside', PATH: '/usr/bin', SHORT: 'abc' });
  expect(env).toEqual({ PATH: '/usr/bin', SHORT: 'abc' });
  withholdFromCommands('abc'); // too short to match safely: ignored
  expect(sanitizeEnv({ SHORT: 'abc' })).toEqual({ SHORT: 'abc' });
});
