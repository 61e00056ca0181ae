import { describe, expect, it } from 'vitest';
import { mediaInputFor, takesKind, takesMedia } from './capabilities';
import { mediaTypeOf, notTakenNotice } from './kinds';

const takes = (provider: Parameters<typeof mediaInputFor>[0], model: string, path: string, options = {}) =>
  takesMedia(mediaInputFor(provider, model, options), mediaTypeOf(path)!.mimeType);

describe('the media input table (SPEC §12)', () => {
  it('Anthropic: images and PDFs', () => {
    expect(['a.png', 'a.jpg', 'a.gif', 'a.webp', 'a.pdf'].map((p) => takes('anthropic', 'claude-sonnet-4-5', p))).toEqual([true, true, true, true, true]);
    expect(['a.heic', 'a.wav', 'a.mp3', 'a.mp4', 'a.pptx'].map((p) => takes('anthropic', 'claude-sonnet-4-5', p))).toEqual([false, false, false, false, false]);
  });

  it('OpenAI: images, PDFs and WAV/MP3 audio; the Responses API and text-only models take less', () => {
    expect(['a.png', 'a.pdf', 'a.wav', 'a.mp3'].every((p) => takes('openai', 'gpt-4o', p))).toBe(true);
    expect(['a.flac', 'a.mp4', 'a.heic'].some((p) => takes('openai', 'gpt-4o', p))).toBe(false);
    expect(takes('openai', 'gpt-5-codex', 'a.wav', { responsesApi: true })).toBe(false);
    expect(takes('openai', 'gpt-5-codex', 'a.pdf', { responsesApi: true })).toBe(true);
    expect(takes('openai', 'gpt-3.5-turbo', 'a.png')).toBe(false);
    expect(takes('openai', 'gpt-3.5-turbo', 'a.pdf')).toBe(false);
  });

  it('Google: every image, audio and video type, and PDFs', () => {
    for (const path of ['a.heic', 'a.heif', 'a.aiff', 'a.flac', 'a.ogg', 'a.m4a', 'a.mov', 'a.3gpp', 'a.wmv', 'a.pdf']) expect(takes('google', 'gemini-2.5-flash', path), path).toBe(true);
    expect(takes('google', 'gemini-2.5-flash', 'a.pptx')).toBe(false);
  });

  it('OpenAI-compatible and Ollama: images, unless the person set otherwise for the model', () => {
    expect(takes('ollama', 'qwen3:8b', 'a.png')).toBe(true);
    expect(takes('openai-compatible', 'm', 'a.pdf')).toBe(false);
    expect(takes('openai-compatible', 'm', 'a.png', { override: [] })).toBe(false);
    expect(takes('ollama', 'qwen2.5-omni', 'a.wav', { override: ['image', 'audio'] })).toBe(true);
    expect(takesKind(mediaInputFor('ollama', 'm', { override: ['document'] }), 'document')).toBe(true);
    expect(takesKind(mediaInputFor('ollama', 'm'), 'video')).toBe(false);
  });

  it('no input table (a tools session) takes everything', () => {
    expect(takesMedia(undefined, 'video/x-flv')).toBe(true);
  });

  it('says what a model does not take in one line', () => {
    expect(notTakenNotice('audio', '/a.wav', 2_048)).toBe('[audio file /a.wav, 2.0 KB: this model does not take audio input]');
  });
});
