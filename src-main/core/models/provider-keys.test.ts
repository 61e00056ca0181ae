import { expect, it } from 'vitest';
import { isAppSecret } from '../process/app-secrets';
import { allProviderKeyVariables, providerCredential } from './provider-keys';

it("every provider-key variable is one of Deepdesk's credentials, withheld from what it starts", () => {
  const names = allProviderKeyVariables();
  expect(names).toEqual(expect.arrayContaining(['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'OPENAI_API_KEY', 'GOOGLE_GENERATIVE_AI_API_KEY', 'GEMINI_API_KEY']));
  for (const name of names) expect(isAppSecret(name, 'some-value'), name).toBe(true);
});

it('finds a credential in precedence order, a given key first, and says which are bearer tokens', () => {
  expect(providerCredential('anthropic', { ANTHROPIC_AUTH_TOKEN: 't' })).toEqual({ value: 't', bearer: true, variable: 'ANTHROPIC_AUTH_TOKEN' });
  expect(providerCredential('anthropic', { ANTHROPIC_API_KEY: 'k', ANTHROPIC_AUTH_TOKEN: 't' })).toEqual({ value: 'k', bearer: false, variable: 'ANTHROPIC_API_KEY' });
  expect(providerCredential('anthropic', { ANTHROPIC_AUTH_TOKEN: 't' }, ' given ')).toEqual({ value: 'given', bearer: false });
  expect(providerCredential('google', { GOOGLE_GENERATIVE_AI_API_KEY: ' ', GEMINI_API_KEY: 'g' })?.value).toBe('g');
  expect(providerCredential('ollama', { OPENAI_API_KEY: 'o' })).toBeUndefined();
});
