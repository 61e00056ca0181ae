// The docs' code examples work as shown: every fenced block marked `ts runnable` in docs/*.md is
// run, as a person would run it (tsx, the repository's packages), against a real `deepdesk host
// --listen` on a data folder whose model is a scripted server. An example that breaks, or that
// prints nothing where the docs say it prints, fails here.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedServer } from '../src-main/core/models/testing/scripted-server';

const repo = resolve(import.meta.dirname, '..');
const bin = join(repo, 'bin/deepdesk.mjs');

/** The `ts runnable` blocks of a Markdown file, with the line each starts on. */
function runnableBlocks(markdown: string): Array<{ line: number; code: string }> {
  const blocks: Array<{ line: number; code: string }> = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!/^```ts\s+runnable\s*$/.test(lines[i]!)) continue;
    const end = lines.findIndex((l, j) => j > i && l.startsWith('```'));
    blocks.push({ line: i + 1, code: lines.slice(i + 1, end).join('\n') });
    i = end;
  }
  return blocks;
}

const examples = readdirSync(join(repo, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .flatMap((f) => runnableBlocks(readFileSync(join(repo, 'docs', f), 'utf8')).map((b) => ({ ...b, file: `docs/${f}` })));

let model: ScriptedServer;
let host: ChildProcess;
let url = '';
let key = '';
let dataDir = '';
let folder = '';

/** Runs `node ARGS`; `answers` are typed as a person would, each once its prompt is on the screen. */
function run(args: string[], env: NodeJS.ProcessEnv, answers: Array<{ prompt: string; type: string }> = []): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((done, reject) => {
    const child = spawn(process.execPath, args, { cwd: repo, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let answered = 0;
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      while (answered < answers.length && out.split(answers[answered]!.prompt).length - 1 > answered) child.stdin!.write(answers[answered++]!.type);
    });
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => done({ code, out, err }));
    if (answers.length === 0) child.stdin!.end();
  });
}

beforeAll(async () => {
  if (!existsSync(join(repo, 'out/main/cli.js'))) throw new Error('run `npm run build` before the docs examples (npm test does)');
  // Asked to write a file, the model does (an approval in `ask` mode), then says it is done.
  model = await startScriptedServer([{ text: 'Writing it. ', toolCalls: [{ name: 'write_file', args: { file_path: '/NOTES.md', content: 'A project.\n' } }] }, { text: 'NOTES.md is written.' }]);
  dataDir = mkdtempSync(join(tmpdir(), 'dd-docs-data-'));
  folder = realpathSync(mkdtempSync(join(tmpdir(), 'dd-docs-folder-')));
  writeFileSync(join(dataDir, 'settings.json'), JSON.stringify({ model: 'openai-compatible:scripted-model', baseUrl: model.url }));
  const env = { ...process.env, OPENAI_API_KEY: '', DEEPDESK_HOME: dataDir };
  key = (await run([bin, 'host', '--print-key'], env)).out.trim();
  host = spawn(process.execPath, [bin, 'host', '--listen', '127.0.0.1:0', '--folder', folder], { cwd: repo, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let printed = '';
  url = await new Promise<string>((done, reject) => {
    host.stdout!.on('data', (d: Buffer) => {
      printed += d.toString();
      const found = /Agent Protocol: (http:\/\/\S+)\n/.exec(printed)?.[1];
      if (found !== undefined) done(found);
    });
    host.once('exit', (code) => reject(new Error(`deepdesk host --listen exited with ${code}`)));
  });
}, 60_000);

afterAll(async () => {
  if (host !== undefined && host.exitCode === null) {
    const exited = new Promise((r) => host.once('exit', r));
    host.kill('SIGINT');
    await exited;
  }
  await model?.close();
  for (const dir of [dataDir, folder]) if (dir !== '') rmSync(dir, { recursive: true, force: true });
});

describe('the docs’ runnable examples', () => {
  it('there is at least the SDK example', () => {
    expect(examples.map((e) => e.file)).toContain('docs/agent-protocol.md');
  });

  it.each(examples)('$file:$line runs: streams, shows the approval it waits for, and answers it', { timeout: 120_000 }, async (example) => {
    // Inside the repository (test-results/ is ignored by git), so that its imports resolve to the repository's packages.
    mkdirSync(join(repo, 'test-results'), { recursive: true });
    const dir = mkdtempSync(join(repo, 'test-results', 'docs-example-'));
    try {
      const file = join(dir, 'example.mts');
      writeFileSync(file, example.code);
      const env = { ...process.env, DEEPDESK_URL: url, DEEPDESK_PROTOCOL_KEY: key, DEEPDESK_FOLDER: folder };
      const result = await run([join(repo, 'node_modules/tsx/dist/cli.mjs'), file], env, [{ prompt: 'Approve? [y/N]', type: 'y\n' }]);
      expect(result.err).toBe('');
      expect(result.code).toBe(0);
      // The answer streamed, the approval shown with what it does, the rest after the answer.
      expect(result.out).toContain('Writing it.');
      expect(result.out).toMatch(/Waits for your approval: write_file \{"file_path":"\/NOTES\.md"/);
      expect(result.out).toContain('NOTES.md is written.');
      expect(readFileSync(join(folder, 'NOTES.md'), 'utf8')).toBe('A project.\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
