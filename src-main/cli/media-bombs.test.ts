// Archives and PDFs are read within a byte budget (issue 37), measured on the built bin as a
// person runs it: the process's peak resident memory (GNU time's %M) stays low for a 2 MB
// PPTX and a 1 MB PDF that unpack to gigabytes, the read is `Error: `, and the session goes on.
// A file that is not the media its name claims is never sent as that media.

import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bin, repo, useCliTestEnv, type CliResult } from './cli-harness.test-support';
import { textOf, toolMessages } from '../core/agent/agent-harness.test-support';
import { makePdfBomb, makePptxBomb } from '../core/media/testing/bombs';

const t = useCliTestEnv('deepdesk-media-bombs');
const TIME = '/usr/bin/time';
const MB = 1024 * 1024;
/** Far above a session's own ~100 MB and far below what the bombs unpack to. */
const PEAK_LIMIT = 300 * MB;

/** `deepdesk ARGS…` under GNU time: its result and its peak resident memory in bytes. */
function measured(args: string[], input?: string): Promise<CliResult & { peak: number }> {
  return new Promise((done, reject) => {
    const child = spawn(TIME, ['-f', 'DEEPDESK_PEAK_KB=%M', process.execPath, bin, ...args], {
      cwd: repo,
      env: { ...process.env, OPENAI_API_KEY: '', DEEPDESK_HOME: t.dataDir },
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (input !== undefined) child.stdin!.end(input);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const peak = /DEEPDESK_PEAK_KB=(\d+)\s*$/.exec(stderr);
      if (peak === null) return reject(new Error(`no peak in: ${stderr}`));
      done({ code, stdout, stderr: stderr.slice(0, peak.index), peak: Number(peak[1]) * 1024 });
    });
  });
}

const outputs = (stdout: string) => stdout.trim().split('\n').map((l) => JSON.parse(l) as { output: string; media?: unknown });
const runArgs = (prompt: string) => ['run', '--folder', t.folder, '--data-dir', t.dataDir, '--model', 'openai-compatible:scripted-model', '--base-url', t.server.url, '--approve', 'auto', prompt];

describe.skipIf(!existsSync(TIME))('media bombs, by the memory they take', () => {
  it('deepdesk tools: a 2 MB PPTX of 100 slides of 19 MB each is Error: in little memory, and the next request is answered', async () => {
    writeFileSync(join(t.folder, 'deck.pptx'), await makePptxBomb(100, 19));
    const calls = [{ tool: 'read_file', args: { file_path: '/deck.pptx' } }, { tool: 'ls', args: {} }];
    const r = await measured(['tools', '--folder', t.folder], calls.map((c) => JSON.stringify(c)).join('\n') + '\n');
    expect(r.stderr).toBe('');
    const [deck, ls] = outputs(r.stdout);
    expect(deck!.output).toMatch(/^Error: '\/deck\.pptx' is not a readable PPTX: its text parts unpack to more than 64 MB/);
    expect(ls!.output).toContain('/deck.pptx (');
    expect(r.peak).toBeLessThan(PEAK_LIMIT);
  }, 120_000);

  it('deepdesk run, a model without PDF input: a 1 MB PDF that inflates to 600 MB is Error: in little memory, and the run answers', async () => {
    writeFileSync(join(t.folder, 'bomb.pdf'), await makePdfBomb(600));
    t.server.push({ toolCalls: [{ name: 'read_file', args: { file_path: '/bomb.pdf' } }] }, { text: 'Could not read it.' });
    const r = await measured(runArgs('read the pdf'));
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe('Could not read it.');
    const result = textOf(toolMessages(t.server.requests[1]!)[0]!.content);
    expect(result).toMatch(/^Error: '\/bomb\.pdf' is not a readable PDF: it unpacks to more than 64 MB/);
    expect(r.peak).toBeLessThan(PEAK_LIMIT);
  }, 120_000);

  it('deepdesk run, a model that takes PDFs: the same PDF goes as a block, and counting its pages stays in little memory', async () => {
    writeFileSync(join(t.dataDir, 'settings.json'), JSON.stringify({ mediaInput: { 'openai-compatible:scripted-model': ['image', 'document'] } }));
    writeFileSync(join(t.folder, 'bomb.pdf'), await makePdfBomb(600, { pageTypeHidden: true }));
    t.server.push({ toolCalls: [{ name: 'read_file', args: { file_path: '/bomb.pdf' } }] }, { text: 'Seen.' });
    const r = await measured(runArgs('read the pdf'));
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe('Seen.');
    expect(JSON.stringify(t.server.requests[1])).toContain('application/pdf');
    expect(r.peak).toBeLessThan(PEAK_LIMIT);
  }, 120_000);
});

describe('a file that is not the media its name claims', () => {
  it('an executable named shot.png is described as binary, never sent as an image', async () => {
    const elf = Buffer.concat([Buffer.from([0x7f]), Buffer.from('ELF'), Buffer.from([2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0x3e, 0]), Buffer.alloc(512, 0x90)]);
    writeFileSync(join(t.folder, 'shot.png'), elf);
    const r = await t.deepdesk(['tools', '--folder', t.folder], {}, JSON.stringify({ tool: 'read_file', args: { file_path: '/shot.png' } }) + '\n');
    const [shot] = outputs(r.stdout);
    expect(shot).toEqual({ output: `Binary file /shot.png (application/octet-stream, ${elf.length} B) cannot be shown as text. Use execute with a suitable converter if you need its contents.` });
  }, 60_000);
});
