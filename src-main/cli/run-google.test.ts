// `deepdesk run` with a Gemini model, as a person runs it: the built bin in a child process,
// against the scripted Gemini server.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makePdf, makeWav } from '../core/media/testing/fixtures';
import { startScriptedGeminiServer, type ScriptedGeminiServer } from '../core/models/testing/scripted-gemini-server';
import { useCliTestEnv } from './cli-harness.test-support';

const t = useCliTestEnv('deepdesk-google');
let server: ScriptedGeminiServer;
beforeEach(async () => {
  server = await startScriptedGeminiServer();
});
afterEach(async () => {
  await server.close();
});

const NO_KEYS = { GOOGLE_GENERATIVE_AI_API_KEY: '', GEMINI_API_KEY: '', ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '' };

function run(args: string[], env: Record<string, string>) {
  return t.deepdesk(['run', '--folder', t.folder, '--data-dir', t.dataDir, ...args], { ...NO_KEYS, ...env });
}

describe('deepdesk run with google', () => {
  it('runs a google_genai: model through --base-url with GEMINI_API_KEY, tools included', async () => {
    server.push(
      { parts: [{ functionCall: { name: 'ls', args: { path: '/' } }, thoughtSignature: 'sig-1' }] },
      { parts: [{ text: 'The folder is empty.' }] },
    );
    const r = await run(['--model', 'google_genai:gemini-2.5-flash', '--base-url', server.url, '--approve', 'auto', 'what is here?'], { GEMINI_API_KEY: 'gem-key' });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe('The folder is empty.');
    expect(server.requests.map((req) => [req.model, req.apiKey])).toEqual([
      ['gemini-2.5-flash', 'gem-key'],
      ['gemini-2.5-flash', 'gem-key'],
    ]);
    expect(server.requests[0]?.body.tools?.[0]?.functionDeclarations?.map((fn) => fn.name)).toContain('read_file');
    const reply = server.requests[1]?.body.contents.at(-1);
    expect(reply?.parts[0]).toMatchObject({ functionResponse: { name: 'ls' } });
  });

  it('sends a PDF and a WAV read_file returns as Gemini takes them, and the signatures again when the thread goes on in a new process', async () => {
    const pdf = makePdf(['First page', 'Second page']);
    const wav = makeWav(0.25);
    writeFileSync(join(t.folder, 'doc.pdf'), pdf);
    writeFileSync(join(t.folder, 'tone.wav'), wav);
    server.push(
      { parts: [{ functionCall: { name: 'read_file', args: { file_path: '/doc.pdf' } }, thoughtSignature: 'sig-1' }] },
      { parts: [{ functionCall: { name: 'read_file', args: { file_path: '/tone.wav' } }, thoughtSignature: 'sig-2' }] },
      { parts: [{ text: 'Read both.' }] },
    );
    const args = ['--model', 'google:gemini-2.5-flash', '--base-url', server.url, '--approve', 'auto', '--thread', 'media-1'];
    const first = await run([...args, 'read them'], { GEMINI_API_KEY: 'k' });
    expect(first.stderr).toBe('');
    expect(first.stdout.trim()).toBe('Read both.');
    const inline = (index: number) => JSON.stringify(server.requests[index]?.body.contents.at(-1));
    expect(inline(1)).toContain('"mimeType":"application/pdf"');
    expect(inline(1)).toContain(pdf.toString('base64'));
    expect(inline(2)).toContain('"mimeType":"audio/wav"');
    expect(inline(2)).toContain(wav.toString('base64'));

    server.push({ parts: [{ text: 'Still here.' }] });
    const second = await run([...args, 'and now?'], { GEMINI_API_KEY: 'k' });
    expect(second.stdout.trim()).toBe('Still here.');
    const history = JSON.stringify(server.requests[3]?.body.contents);
    expect(history).toContain('"thoughtSignature":"sig-1"');
    expect(history).toContain('"thoughtSignature":"sig-2"');
  });

  it('prefers --api-key to the environment', async () => {
    server.push({ parts: [{ text: 'hi' }] });
    const r = await run(['--model', 'google:gemini-2.5-pro', '--base-url', server.url, '--api-key', 'flag-key', 'hi'], { GOOGLE_GENERATIVE_AI_API_KEY: 'env-key' });
    expect(r.code).toBe(0);
    expect(server.requests[0]?.apiKey).toBe('flag-key');
  });

  it('without a key: one line naming --api-key and both variables, exit 1, no request', async () => {
    const r = await run(['--model', 'google:gemini-2.5-flash', '--base-url', server.url, 'hi'], {});
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('deepdesk run: No API key for google: set GOOGLE_GENERATIVE_AI_API_KEY or GEMINI_API_KEY or pass --api-key\n');
    expect(server.requests).toHaveLength(0);
  });
});
