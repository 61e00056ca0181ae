// A subagent that needs approval asks the person in the window, inline under its task,
// exactly as the agent's own calls do (SPEC §4, §6): approve, reject, edit, parallel
// subagents asking at once, and a restart while one waits.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest, ScriptStep } from '../src-main/core/models/testing/scripted-server';
import { approval, conversation, openApp, sendMessage, useE2ESession, type ServeHandle } from './harness';

const e2e = useE2ESession();

const textOf = (content: unknown): string =>
  typeof content === 'string' ? content : Array.isArray(content) ? content.map((p: { text?: string }) => p.text ?? '').join('') : '';
const isSubagent = (req: RecordedRequest): boolean => textOf(req.messages[0]!.content).includes('You are a subagent');
const results = (req: RecordedRequest): string[] => req.messages.filter((m) => m.role === 'tool').map((m) => textOf(m.content));

/** One subagent per file, each writing its file; the parent reports what came back. */
function responder(files: string[]): ScriptStep {
  return (req) => {
    if (!isSubagent(req)) {
      if (req.messages.some((m) => m.role === 'tool')) return { text: `All done: ${results(req).join(' | ')}` };
      return { toolCalls: files.map((f) => ({ name: 'task', args: { description: `write ${f}`, subagent_type: 'general-purpose' } })) };
    }
    const task = textOf(req.messages.find((m) => m.role === 'user')!.content);
    const file = files.find((f) => task.includes(f))!;
    if (req.messages.some((m) => m.role === 'tool')) return { text: `sub ${file}: ${results(req).join(' | ')}` };
    return { toolCalls: [{ name: 'write_file', args: { file_path: file, content: `from ${file}\n` } }] };
  };
}

async function start(files: string[]): Promise<{ page: Page; serve: ServeHandle }> {
  const serve = await e2e.serve({ script: Array.from({ length: 4 * files.length + 2 }, () => responder(files)) });
  const page = await openApp(e2e.browser, serve.url);
  return { page, serve };
}

describe("a subagent's approval in the window", () => {
  it('appears inline and Approve runs the subagent’s write', async () => {
    const { page, serve: s } = await start(['/one.txt']);
    await sendMessage(page, 'delegate one');
    await approval(page).first().waitFor();
    await expect.poll(() => approval(page).count()).toBe(1);
    await approval(page).getByRole('button', { name: 'Approve', exact: true }).click();
    await conversation(page).getByText('All done:').waitFor();
    expect(readFileSync(join(s.folder, 'one.txt'), 'utf8')).toBe('from /one.txt\n');
    await expect.poll(() => approval(page).count()).toBe(0);
  });

  it('parallel subagents ask at once; one is rejected and one edited', async () => {
    const { page, serve: s } = await start(['/a.txt', '/b.txt']);
    await sendMessage(page, 'delegate two');
    await expect.poll(() => approval(page).count(), { timeout: 60_000 }).toBe(2);
    const cardFor = (file: string) => approval(page).filter({ hasText: file });
    await cardFor('/a.txt').getByRole('button', { name: 'Reject', exact: true }).click();
    await expect.poll(() => approval(page).count()).toBe(1);
    const b = cardFor('/b.txt');
    await b.getByRole('button', { name: 'Edit', exact: true }).click();
    const content = b.getByRole('textbox', { name: 'New content' });
    await content.fill('edited by me\n');
    await b.getByRole('button', { name: 'Approve', exact: true }).click();
    await conversation(page).getByText('All done:').waitFor({ timeout: 60_000 });
    expect(existsSync(join(s.folder, 'a.txt'))).toBe(false);
    expect(readFileSync(join(s.folder, 'b.txt'), 'utf8')).toBe('edited by me\n');
  });

  it('a waiting subagent approval is there again after the window and serve restart (the run is the agent host’s), and approving it finishes the run', async () => {
    const first = await start(['/later.txt']);
    await sendMessage(first.page, 'delegate later');
    await approval(first.page).first().waitFor();
    const { folder, dataDir } = first.serve;
    await first.page.context().close();
    // The run goes on in the agent host, with the model it started with.
    await first.serve.stop({ keepData: true, keepModel: true });
    const serve = await e2e.serve({ folder, dataDir });
    const page = await openApp(e2e.browser, serve.url);
    await approval(page).first().waitFor({ timeout: 60_000 });
    await approval(page).getByRole('button', { name: 'Approve', exact: true }).click();
    await conversation(page).getByText('All done:').waitFor({ timeout: 60_000 });
    expect(readFileSync(join(folder, 'later.txt'), 'utf8')).toBe('from /later.txt\n');
    await first.serve.stop();
  });
});
