// `deepdesk run` creates its model with the media input set per model in Settings (SPEC §12),
// as the app does: the built bin in a child process against the scripted server.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { textOf, toolMessages } from '../core/agent/agent-harness.test-support';
import { makePng } from '../core/media/testing/fixtures';
import { useCliTestEnv } from './cli-harness.test-support';

const t = useCliTestEnv('deepdesk-run-media');

function run(prompt: string) {
  return t.deepdesk(['run', '--folder', t.folder, '--data-dir', t.dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', t.server.url, '--approve', 'auto', prompt]);
}

describe('deepdesk run and the media input of Settings', () => {
  const png = makePng(8, 8);
  const readPng = () => t.server.push({ toolCalls: [{ name: 'read_file', args: { file_path: '/pic.png' } }] }, { text: 'seen' });

  it('sends the image by the provider default, and the §12 notice when Settings took images away from this model', async () => {
    writeFileSync(join(t.folder, 'pic.png'), png);
    readPng();
    expect((await run('look at pic.png')).code).toBe(0);
    expect(JSON.stringify(t.server.requests[1]!.messages)).toContain(png.toString('base64'));

    writeFileSync(join(t.dataDir, 'settings.json'), JSON.stringify({ mediaInput: { 'openai-compatible:scripted-model': [], 'openai-compatible:other': ['image'] } }));
    readPng();
    const r = await run('look at pic.png again');
    expect(r.code).toBe(0);
    const sent = t.server.requests[3]!;
    expect(JSON.stringify(sent.messages)).not.toContain(png.toString('base64'));
    expect(textOf(toolMessages(sent).at(-1)!.content)).toMatch(/^\[image file \/pic\.png, \d+ B: this model does not take image input\]$/m);
  });
});
