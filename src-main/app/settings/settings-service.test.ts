import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileSecretStore } from './file-secret-store';
import { SettingsService } from './settings-service';

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'deepdesk-settings-'));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

describe('SettingsService.apiKeyFor', () => {
  it('reads a Google key from GOOGLE_GENERATIVE_AI_API_KEY, else GEMINI_API_KEY, and a stored key wins', async () => {
    const service = (env: NodeJS.ProcessEnv) => new SettingsService(dataDir, new FileSecretStore(dataDir), env);
    const both = service({ GOOGLE_GENERATIVE_AI_API_KEY: 'g-first', GEMINI_API_KEY: 'g-second' });
    expect(await both.apiKeyFor('google')).toBe('g-first');
    const gemini = service({ GOOGLE_GENERATIVE_AI_API_KEY: ' ', GEMINI_API_KEY: 'g-second' });
    expect(await gemini.apiKeyFor('google')).toBe('g-second');
    const none = service({ OPENAI_API_KEY: 'sk-o' });
    expect(await none.apiKeyFor('google')).toBeUndefined();
    expect(await none.apiKeyFor('openai')).toBe('sk-o');
    expect(await none.apiKeyFor('ollama')).toBeUndefined();
    await gemini.setApiKey('google', 'g-stored');
    expect(await gemini.apiKeyFor('google')).toBe('g-stored');
    for (const s of [both, gemini, none]) s.close();
  });
});
