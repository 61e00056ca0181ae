// Skills and hooks through the app's contract (SPEC §9, §11): Settings lists them with their
// files and problems and turns each off; a folder's own hooks and skills wait for trust.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../core/models/testing/scripted-server';
import { useAppTestEnv } from '../window/app-harness.test-support';

const t = useAppTestEnv('deepdesk-extensions-app');

function skill(root: string, name: string, description: string): void {
  mkdirSync(join(root, name), { recursive: true });
  writeFileSync(join(root, name, 'SKILL.md'), `---\nname: ${name}\ndescription: ${description}\n---\nBody of ${name}.\n`);
}

const systemOf = (req: RecordedRequest): string => String(req.messages[0]!.content);

describe('skills and hooks through the contract', () => {
  it('lists the person’s skills with problems, and a skill turned off leaves the prompt', async () => {
    skill(join(t.dataDir, 'skills'), 'changelog', 'Keep the changelog');
    mkdirSync(join(t.dataDir, 'skills', 'Broken'), { recursive: true });
    writeFileSync(join(t.dataDir, 'skills', 'Broken', 'SKILL.md'), '---\nname: Broken\n---\n');
    const { call } = await t.open();
    const list = await call('skills.list', {});
    expect(list.skills.map((s) => [s.name, s.source, s.enabled])).toEqual([['changelog', 'user', true]]);
    expect(list.problems.join('\n')).toContain(join(t.dataDir, 'skills', 'Broken', 'SKILL.md'));

    const thread = await call('threads.create', {});
    t.server.push({ text: 'one' }, { text: 'two' });
    await call('threads.send', { threadId: thread.id, text: 'hi' });
    await expect.poll(() => t.server.requests.length).toBe(1);
    expect(systemOf(t.server.requests[0]!)).toContain('changelog: Keep the changelog');

    expect((await call('skills.setEnabled', { name: 'changelog', enabled: false })).skills[0]!.enabled).toBe(false);
    await expect.poll(async () => (await call('threads.get', { threadId: thread.id })).thread.running).toBe(false);
    await call('threads.send', { threadId: thread.id, text: 'again' });
    await expect.poll(() => t.server.requests.length).toBe(2);
    expect(systemOf(t.server.requests[1]!)).not.toContain('changelog');
  });

  it("a folder's hook and skill wait for trust; a hook turned off does not run", async () => {
    const marker = join(t.folder, 'hook-ran');
    mkdirSync(join(t.folder, '.deepdesk'), { recursive: true });
    writeFileSync(join(t.folder, '.deepdesk', 'hooks.json'), JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: `echo ran >> "${marker}"` }] }] } }));
    skill(join(t.folder, '.claude', 'skills'), 'deploy', 'Deploy the site');
    const { call } = await t.open();
    await expect.poll(async () => (await call('trust.get', {})).untrusted.map((e) => e.kind).sort()).toEqual(['hook', 'skill']);
    expect((await call('hooks.list', {})).hooks).toEqual([]);
    expect((await call('skills.list', {})).skills).toEqual([]);

    await call('trust.grant', { digest: (await call('trust.get', {})).digest });
    const hooks = (await call('hooks.list', {})).hooks;
    expect(hooks.map((h) => [h.event, h.source])).toEqual([['UserPromptSubmit', 'project']]);
    expect((await call('skills.list', {})).skills.map((s) => s.name)).toEqual(['deploy']);

    const thread = await call('threads.create', {});
    t.server.push({ text: 'one' }, { text: 'two' });
    await call('threads.send', { threadId: thread.id, text: 'first' });
    await expect.poll(() => t.server.requests.length).toBe(1);
    await expect.poll(async () => (await call('threads.get', { threadId: thread.id })).thread.running).toBe(false);
    expect(readFileSync(marker, 'utf8')).toBe('ran\n');

    await call('hooks.setEnabled', { id: hooks[0]!.id, enabled: false });
    await call('threads.send', { threadId: thread.id, text: 'second' });
    await expect.poll(() => t.server.requests.length).toBe(2);
    expect(readFileSync(marker, 'utf8')).toBe('ran\n');
  });
});
