// `deepdesk run` creates its model with the media input set per model in Settings (SPEC §12),
// as the app does: the built bin in a child process against the scripted server.

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { textOf, toolMessages } from '../core/agent/agent-harness.test-support';
import { makePng } from '../core/media/testing/fixtures';
import { startScriptedServer, type ScriptedServer } from '../core/models/testing/scripted-server';

const repo = resolve(import.meta.dirname, '../..');
const bin = join(repo, 'bin/deepdesk.mjs');

let folder: string;
let dataDir: string;
let server: ScriptedServer;

beforeAll(() => {
  if (!existsSync(join(repo, 'out/main/cli.js'))) throw new Error('run `npm run build` before the CLI tests (npm test does)');
});
beforeEach(async () => {
  folder = mkdtempSync(join(tmpdir(), 'deepdesk-run-media-'));
  dataDir = mkdtempSync(join(tmpdir(), 'deepdesk-run-media-data-'));
  server = await startScriptedServer();
});
afterEach(async () => {
  await server.close();
  rmSync(folder, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

function run(prompt: string): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [bin, 'run', '--folder', folder, '--data-dir', dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', server.url, '--approve', 'auto', prompt], {
    cwd: repo,
    env: { ...process.env, OPENAI_API_KEY: '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((done) => child.on('close', (code) => done({ code, stderr })));
}

describe('deepdesk run and the media input of Settings', () => {
  const png = makePng(8, 8);
  const readPng = () => server.push({ toolCalls: [{ name: 'read_file', args: { file_path: '/pic.png' } }] }, { text: 'seen' });

  it('sends the image by the provider default, and the §12 notice when Settings took images away from this model', async () => {
    writeFileSync(join(folder, 'pic.png'), png);
    readPng();
    expect((await run('look at pic.png')).code).toBe(0);
    expect(JSON.stringify(server.requests[1]!.messages)).toContain(png.toString('base64'));

    writeFileSync(join(dataDir, 'settings.json'), JSON.stringify({ mediaInput: { 'openai-compatible:scripted-model': [], 'openai-compatible:other': ['image'] } }));
    readPng();
    const r = await run('look at pic.png again');
    expect(r.code).toBe(0);
    const sent = server.requests[3]!;
    expect(JSON.stringify(sent.messages)).not.toContain(png.toString('base64'));
    expect(textOf(toolMessages(sent).at(-1)!.content)).toMatch(/^\[image file \/pic\.png, \d+ B: this model does not take image input\]$/m);
  });
});
