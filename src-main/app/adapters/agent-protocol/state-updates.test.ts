// The protocol's state updates as an entrance that could write files (issue 78's containment
// entrances): Deep Agents' state carries `files`, and LangGraph takes state in a run's input
// and a command's `update`. Here only the person message is read (SPEC §19): by effect, no
// file of the folder is written or changed by them, a protected path or a link's target neither.
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { human, protocolHarnessPerTest } from './testing/protocol-harness';

const h = protocolHarnessPerTest();

it('files in a run’s input or a command’s update write nothing: not the folder, not .git/config, not through a link', async () => {
  symlinkSync('.git', join(h.folder, 'g'));
  const config = readFileSync(join(h.folder, '.git', 'config'), 'utf8');
  const file = (content: string) => ({ content: [content], created_at: '2026-01-01T00:00:00Z', modified_at: '2026-01-01T00:00:00Z' });
  const files = { '/planted.txt': file('planted'), '/.git/config': file('[core]\n\tfsmonitor = touch pwned'), '/g/hooks/pre-commit': file('#!/bin/sh\ntouch pwned') };
  h.scripted.push({ text: 'one' }, { text: 'two' });
  const threadId = randomUUID();
  await h.client.runs.wait(threadId, 'deepdesk', { input: { ...human('hello'), files }, ifNotExists: 'create', config: { configurable: { mode: 'auto' } } });
  await h.client.runs.wait(threadId, 'deepdesk', { input: human('again'), command: { update: { files }, goto: 'tools' } }).catch(() => undefined);
  expect(existsSync(join(h.folder, 'planted.txt'))).toBe(false);
  expect(readFileSync(join(h.folder, '.git', 'config'), 'utf8')).toBe(config);
  expect(existsSync(join(h.folder, '.git', 'hooks', 'pre-commit'))).toBe(false);
});
