// Issue 38 in headless Chromium against `deepdesk serve`: a folder's Claude Code commands and
// subagents wait for trust, then show in the `/` list and in Settings › Subagents with where
// they come from; Settings › Plugins adds a marketplace from a local git repository, shows
// exactly what a plugin would load before `Install`, and lists it installed. A folder's
// `enabledPlugins` are offered in its trust question: the marketplace its settings name added
// on one confirmation, the plugin installed on another after its list is shown (SPEC §15).

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { openApp, useE2ESession } from './harness';

const session = useE2ESession();
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const put = (path: string, text: string): void => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
};

async function open(url: string): Promise<Page> {
  const page = await openApp(session.browser, url, { width: 1400, height: 900 });
  cleanups.push(() => page.context().close());
  return page;
}

describe("Claude Code's files in the window", () => {
  it('a folder command and subagent load after Trust folder: the / list and Settings › Subagents show them', { timeout: 90_000 }, async () => {
    const serve = await session.serve();
    put(join(serve.folder, '.claude', 'commands', 'ship.md'), '---\ndescription: Ship the release\nargument-hint: [version]\n---\nShip version $1.\n');
    put(join(serve.folder, '.claude', 'agents', 'reviewer.md'), '---\nname: reviewer\ndescription: Reviews changes\ntools: Read, Grep\n---\nYou review.\n');
    put(join(serve.folder, '.claude', 'settings.json'), JSON.stringify({ permissions: { deny: ['Bash(rm -rf:*)'], allow: ['Bash(npm test:*)'] } }));
    const page = await open(serve.url);
    const question = page.getByRole('group', { name: 'Trust this folder?' });
    await question.waitFor({ timeout: 60_000 });
    await expect.poll(() => question.textContent(), { timeout: 60_000 }).toContain('Command /ship: .claude/commands/ship.md');
    await expect.poll(() => question.textContent()).toContain('Subagent reviewer (tools: Read, Grep): .claude/agents/reviewer.md');
    expect(await question.textContent()).toContain('Permission allow: Bash(npm test:*) (.claude/settings.json)');

    const box = page.getByRole('textbox', { name: 'Message', exact: true });
    await box.fill('/sh');
    const commands = page.getByRole('listbox', { name: 'Commands' });
    // Not trusted yet: not offered.
    await expect.poll(async () => (await commands.count()) === 0 || !(await commands.textContent())?.includes('ship')).toBe(true);
    await box.fill('');

    await question.getByRole('button', { name: 'Trust folder' }).click();
    await question.waitFor({ state: 'detached' });
    await box.fill('/sh');
    await expect.poll(() => commands.textContent(), { timeout: 60_000 }).toContain('Ship the release');
    await box.fill('');

    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    await dialog.waitFor();
    const reviewer = dialog.getByRole('listitem', { name: 'Subagent reviewer' });
    await expect.poll(() => reviewer.textContent(), { timeout: 60_000 }).toContain("the folder's");
    expect(await reviewer.textContent()).toContain('tools: Read, Grep');
    // The folder's settings rules, trusted now, listed with their file.
    const fromFiles = dialog.getByRole('list', { name: 'Rules from settings files' });
    await expect.poll(() => fromFiles.getByRole('listitem').evaluateAll((items) => items.map((i) => i.getAttribute('aria-label'))), { timeout: 60_000 }).toEqual([
      'deny Bash(rm -rf:*) from .claude/settings.json',
      'allow Bash(npm test:*) from .claude/settings.json',
    ]);
  });

  it('Settings › Plugins: add a marketplace, see what a plugin loads, Install', { timeout: 90_000 }, async () => {
    const market = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-e2e-market-')));
    cleanups.push(() => rmSync(market, { recursive: true, force: true }));
    put(join(market, '.claude-plugin', 'marketplace.json'), JSON.stringify({ name: 'tools', plugins: [{ name: 'helper', source: './helper', description: 'Helps with tidying' }] }));
    put(join(market, 'helper', '.claude-plugin', 'plugin.json'), JSON.stringify({ name: 'helper', version: '1.2.0' }));
    put(join(market, 'helper', 'skills', 'tidy', 'SKILL.md'), '---\nname: tidy\ndescription: Tidies code\n---\nTidy.\n');
    put(join(market, 'helper', 'commands', 'review.md'), 'Review the change\n');
    for (const args of [['init', '-q', '-b', 'main'], ['add', '.'], ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'm']]) execFileSync('git', args, { cwd: market });

    const serve = await session.serve();
    const page = await open(serve.url);
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    const plugins = dialog.getByRole('region', { name: 'Plugins' });
    await plugins.waitFor();
    await plugins.getByLabel('Add a marketplace (a git URL or a local folder)').fill(`file://${market}`);
    await plugins.getByRole('button', { name: 'Add marketplace' }).click();
    await plugins.getByRole('button', { name: 'Install helper' }).click();
    const preview = plugins.getByRole('group', { name: 'Install helper?' });
    await expect.poll(() => preview.textContent(), { timeout: 60_000 }).toContain('Install helper 1.2.0 would load:');
    expect(await preview.textContent()).toContain('Skill tidy');
    expect(await preview.textContent()).toContain('Command /helper:review');
    await preview.getByRole('button', { name: 'Install', exact: true }).click();
    const installed = plugins.getByRole('listitem', { name: 'helper' });
    await expect.poll(() => installed.textContent(), { timeout: 60_000 }).toContain('1 skill, 1 command, 0 agents, 0 hooks, 0 servers');
    // The marketplace shows it installed, not offered again.
    const offered = dialog.getByRole('group', { name: 'Marketplace tools' });
    await expect.poll(() => offered.textContent()).toContain('Installed');
    expect(await offered.getByRole('button', { name: 'Install helper' }).count()).toBe(0);
    expect(await installed.getByRole('checkbox', { name: 'Enable helper' }).isChecked()).toBe(true);
    // Its skill is the person's now: Settings › Skills lists it.
    await expect.poll(() => dialog.getByRole('region', { name: 'Skills' }).textContent(), { timeout: 60_000 }).toContain('tidy');
  });

  it("a folder's enabledPlugins: offered in the trust question, its marketplace and then the plugin each on a confirmation", { timeout: 90_000 }, async () => {
    const market = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-e2e-market-')));
    cleanups.push(() => rmSync(market, { recursive: true, force: true }));
    put(join(market, '.claude-plugin', 'marketplace.json'), JSON.stringify({ name: 'tools', plugins: [{ name: 'helper', source: './helper' }] }));
    put(join(market, 'helper', '.claude-plugin', 'plugin.json'), JSON.stringify({ name: 'helper', version: '1.2.0' }));
    put(join(market, 'helper', 'commands', 'review.md'), '---\nargument-hint: [file] [focus]\n---\nReview the change\n');
    for (const args of [['init', '-q', '-b', 'main'], ['add', '.'], ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'm']]) execFileSync('git', args, { cwd: market });

    const serve = await session.serve();
    put(join(serve.folder, '.claude', 'settings.json'), JSON.stringify({ enabledPlugins: { 'helper@tools': true }, extraKnownMarketplaces: { tools: { source: { source: 'git', url: `file://${market}` } } } }));
    const page = await open(serve.url);
    const question = page.getByRole('group', { name: 'Trust this folder?' });
    const offer = question.getByRole('group', { name: 'Plugins this folder asks for' });
    await expect.poll(() => offer.textContent(), { timeout: 60_000 }).toContain('helper@tools');
    // Nothing else of the folder's needs trust: there is nothing to trust but the offer.
    expect(await question.getByRole('button', { name: 'Trust folder' }).count()).toBe(0);

    await offer.getByRole('button', { name: 'Add marketplace tools' }).click();
    const addMarket = offer.getByRole('group', { name: 'Add marketplace tools?' });
    expect(await addMarket.textContent()).toContain(`file://${market}`);
    await addMarket.getByRole('button', { name: 'Add marketplace', exact: true }).click();

    await offer.getByRole('button', { name: 'Install helper' }).click({ timeout: 20_000 });
    const preview = offer.getByRole('group', { name: 'Install helper?' });
    await expect.poll(() => preview.textContent(), { timeout: 60_000 }).toContain('Install helper 1.2.0 would load:');
    expect(await preview.textContent()).toContain('Command /helper:review');
    await preview.getByRole('button', { name: 'Install', exact: true }).click();
    // Installed: nothing is left to ask, and its command is in the / list.
    await question.waitFor({ state: 'detached', timeout: 60_000 });
    const box = page.getByRole('textbox', { name: 'Message', exact: true });
    await box.fill('/rev');
    await expect.poll(() => page.getByRole('listbox', { name: 'Commands' }).textContent(), { timeout: 60_000 }).toContain('/helper:review [file] [focus]');
  });
});
