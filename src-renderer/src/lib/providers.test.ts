import { describe, it, expect } from 'vitest';
import { listingHint, parseModel, serverLabel, withProvider } from './providers';

describe('providers', () => {
  it('parses PROVIDER:MODEL at the first colon', () => {
    expect(parseModel('anthropic:claude-sonnet-4-5')).toEqual({ provider: 'anthropic', model: 'claude-sonnet-4-5' });
    expect(parseModel('ollama:llama3.1:8b')).toEqual({ provider: 'ollama', model: 'llama3.1:8b' });
    expect(parseModel('gpt-4o')).toEqual({ provider: null, model: 'gpt-4o' });
    expect(parseModel('weird:thing')).toEqual({ provider: null, model: 'weird:thing' });
    expect(parseModel('')).toEqual({ provider: null, model: '' });
  });

  it('sets the provider prefix', () => {
    expect(withProvider('openai:gpt-4o', 'anthropic')).toBe('anthropic:gpt-4o');
    expect(withProvider('', 'ollama')).toBe('ollama:');
    expect(withProvider('qwen3:4b', 'ollama')).toBe('ollama:qwen3:4b');
  });

  it('names local servers', () => {
    expect(serverLabel({ provider: 'ollama', baseUrl: 'http://127.0.0.1:11434' })).toBe('Ollama');
    expect(serverLabel({ provider: 'openai-compatible', baseUrl: 'http://localhost:1234/v1' })).toBe('LM Studio');
    expect(serverLabel({ provider: 'openai-compatible', baseUrl: 'http://localhost:8080/v1' })).toBe('llama.cpp');
    expect(serverLabel({ provider: 'openai-compatible', baseUrl: 'http://localhost:9000/v1' })).toBe('openai-compatible at http://localhost:9000/v1');
  });

  it('says what to do before models can be listed, instead of a listing error', () => {
    expect(listingHint('anthropic', '', false)).toBe('Add an API key for Anthropic to list its models.');
    expect(listingHint('openai', '', false)).toBe('Add an API key for OpenAI to list its models.');
    expect(listingHint('anthropic', '', true)).toBeNull();
    expect(listingHint('openai-compatible', ' ', false)).toBe('Enter the server’s base URL to list its models.');
    expect(listingHint('openai-compatible', 'http://127.0.0.1:1234/v1', false)).toBeNull();
    expect(listingHint('ollama', '', false)).toBeNull();
  });
});
