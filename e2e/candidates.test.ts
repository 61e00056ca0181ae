// Candidates in the window (SPEC §21): a set started by `deepdesk run --candidates 2` in the
// data folder a `deepdesk serve` window shows is one item of region `Agents`, its candidates
// listed under it in their order, each with its worktree and its goal's state; `Compare` shows
// the ranking, one column per candidate (state, verify results with output, criteria, change,
// cost, its diff one click away) with Apply and Discard; a candidate's row opens its thread. Scripted candidates: one fixes the code the hidden check runs, the
// other claims success while it fails.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest, ScriptStep } from '../src-main/core/models/testing/scripted-server';
import { approval, conversation, openApp, repo, useE2ESession } from './harness';
import { describeViolations, seriousViolations, THEMES } from './axe';
import { startDaytonaStandin } from '../src-main/core/sandbox-providers/testing/daytona-standin';

const e2e = useE2ESession();
const CHECK = 'node check.js';
const NO_PROVIDER_KEYS = { DAYTONA_API_KEY: '', DAYTONA_API_URL: '', E2B_API_KEY: '', MODAL_TOKEN_ID: '', MODAL_TOKEN_SECRET: '', DENO_DEPLOY_TOKEN: '' };

describe('candidates in the window', () => {
  it('the Agents view shows a set as one item with its candidates; Compare shows one column per candidate with its evidence, its diff, Apply (the folder changes only then) and Discard; a candidate opens', { timeout: 180_000 }, async () => {
    const serve = await e2e.serve();
    writeFileSync(join(serve.folder, 'sum.js'), 'module.exports = (a, b) => a - b;\n');
    writeFileSync(join(serve.folder, 'check.js'), "const sum = require('./sum');\nif (sum(2, 3) !== 5) { console.error('FAIL'); process.exit(1); }\nconsole.log('ok');\n");
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: serve.folder, stdio: 'ignore' });
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'fixture');
    const write = (body: string): ScriptStep => ({ toolCalls: [{ name: 'execute', args: { command: `printf '%s\\n' 'module.exports = (a, b) => ${body};' > sum.js` } }] });
    const turns: Record<string, ScriptStep[]> = {
      'cand-a': [write('a + b'), { text: 'Changed sum to add.' }],
      'cand-b': [write('a * b'), { text: 'All tests pass.' }, { text: 'All tests pass.' }, { text: 'All tests pass.' }, { text: 'All tests pass.' }],
    };
    for (let i = 0; i < 60; i++) {
      serve.model.push((request: RecordedRequest): ScriptStep => {
        if (request.tools?.some((t) => t.function.name === 'record_verdict')) {
          const prompt = String(request.messages.find((m) => m.role === 'user')?.content ?? '');
          return { toolCalls: [{ name: 'record_verdict', args: { criteria: [{ id: 'c1', verdict: /→ FAILED/.test(prompt) ? 'needs_revision' : 'satisfied', reason: 'evidence' }] } }] };
        }
        return turns[request.model]?.shift() ?? { text: 'Nothing more.' };
      });
    }

    const page = await openApp(e2e.browser, serve.url);
    const agents = page.getByRole('region', { name: 'Agents', exact: true });
    await agents.waitFor();

    const run = spawn(
      process.execPath,
      [
        join(repo, 'bin/deepdesk.mjs'),
        'run',
        '--folder',
        serve.folder,
        '--data-dir',
        serve.dataDir,
        '--base-url',
        serve.model.url,
        '--approve',
        'auto',
        '--candidates',
        '2',
        '--model',
        'openai-compatible:cand-a',
        '--model',
        'openai-compatible:cand-b',
        '--goal',
        'make sum add',
        '--verify',
        CHECK,
        '--json',
      ],
      { cwd: repo, env: { ...process.env, OPENAI_API_KEY: '' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    run.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    const code = await new Promise<number | null>((done) => run.on('close', done));
    expect(code).toBe(0);
    const ranking = (JSON.parse(stdout.trim().split('\n').at(-1)!) as { ranking: Array<{ threadId: string; model: string; worktree: { path: string } }> }).ranking;
    expect(ranking.map((r) => r.model)).toEqual(['openai-compatible:cand-a', 'openai-compatible:cand-b']);

    // One item for the set, its two candidates under it in their order, each with its goal's state.
    const set = agents.getByRole('list', { name: 'Candidates: make sum add' });
    await expect.poll(() => set.getByRole('listitem').count(), { timeout: 60_000 }).toBe(2);
    await expect.poll(() => agents.getByText('2 candidates: make sum add').count()).toBe(1);
    const [first, second] = [set.getByRole('listitem').nth(0), set.getByRole('listitem').nth(1)];
    await expect.poll(() => first.innerText()).toContain('Goal: achieved');
    await expect.poll(() => second.innerText()).toContain('Goal: unmet');
    // Only the set's item and nothing else at the top level: the candidates are not listed twice.
    await expect.poll(() => agents.locator('ul.agent-items:not(.agent-set-items) > li').count()).toBe(1);

    // The comparison: one column per candidate in rank order, the evidence in each, Apply and Discard.
    await agents.getByRole('button', { name: 'Compare', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Candidates' });
    const col1 = dialog.getByRole('region', { name: 'Candidate 1' });
    const col2 = dialog.getByRole('region', { name: 'Candidate 2' });
    await expect.poll(() => col1.innerText(), { timeout: 60_000 }).toContain('achieved');
    expect(await col1.innerText()).toContain('node check.js — passed');
    expect(await col1.innerText()).toContain('Change: 1 files, 2 lines');
    // The host's kept ranking, with each candidate's model.
    expect(await col1.innerText()).toContain('openai-compatible:cand-a');
    expect(await col2.innerText()).toContain('openai-compatible:cand-b');
    expect(await col2.innerText()).toContain('unmet');
    expect(await col2.innerText()).toContain('Claimed success while a check failed');
    expect(await col2.innerText()).toContain('node check.js — failed (exit 1)');
    await col1.getByRole('button', { name: 'Show diff' }).click();
    await expect.poll(() => dialog.getByLabel('Diff of candidate 1').innerText()).toContain('a + b');
    // WCAG 2.2 AA (axe) with the comparison open, in both themes.
    for (const theme of THEMES) {
      await page.emulateMedia({ colorScheme: theme, reducedMotion: 'reduce' });
      await page.waitForFunction((t) => document.documentElement.dataset.theme === t, theme);
      expect(describeViolations(await seriousViolations(page)), theme).toBe('');
    }
    // Nothing reached the folder yet.
    expect(readFileSync(join(serve.folder, 'sum.js'), 'utf8')).toContain('a - b');
    await col1.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => dialog.getByRole('status').innerText()).toContain('Applied candidate 1 to your folder');
    expect(readFileSync(join(serve.folder, 'sum.js'), 'utf8')).toContain('a + b');
    await col2.getByRole('button', { name: 'Discard' }).click();
    await expect.poll(() => dialog.getByRole('status').innerText()).toContain("Discarded candidate 2's worktree");
    expect(existsSync(ranking[1]!.worktree.path)).toBe(false);
    expect(existsSync(ranking[0]!.worktree.path)).toBe(true);
    await dialog.getByRole('button', { name: 'Close' }).click();

    // A candidate's row opens its thread, in its worktree.
    await first.getByRole('button').click();
    await expect.poll(() => conversation(page).innerText(), { timeout: 60_000 }).toContain('Changed sum to add.');
    // From a thread with a goal: Run N candidates on its goal, its verify commands with it.
    await page.getByRole('button', { name: 'Run N candidates on this goal…' }).click();
    const again = page.getByRole('dialog', { name: 'Run candidates' });
    expect(await again.getByLabel('Goal', { exact: true }).inputValue()).toBe('make sum add');
    expect(await again.getByLabel('Verify commands (one per line)').inputValue()).toBe(CHECK);
    await again.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => again.count()).toBe(0);
  });

  it('Run N candidates… from the message box starts the set in the host: its dialog passes axe, the set shows as one item, Compare ranks it, the folder changes only on Apply', { timeout: 180_000 }, async () => {
    const serve = await e2e.serve();
    writeFileSync(join(serve.folder, 'sum.js'), 'module.exports = (a, b) => a - b;\n');
    writeFileSync(join(serve.folder, 'check.js'), "const sum = require('./sum');\nif (sum(2, 3) !== 5) { console.error('FAIL'); process.exit(1); }\nconsole.log('ok');\n");
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: serve.folder, stdio: 'ignore' });
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'fixture');
    const write = (body: string): ScriptStep => ({ toolCalls: [{ name: 'execute', args: { command: `printf '%s\\n' 'module.exports = (a, b) => ${body};' > sum.js` } }] });
    const turns: Record<string, ScriptStep[]> = {
      'cand-a': [write('a * b'), { text: 'All tests pass.' }, { text: 'All tests pass.' }, { text: 'All tests pass.' }, { text: 'All tests pass.' }],
      'cand-b': [write('a + b'), { text: 'Changed sum to add.' }],
    };
    for (let i = 0; i < 60; i++) {
      serve.model.push((request: RecordedRequest): ScriptStep => {
        if (request.tools?.some((t) => t.function.name === 'record_verdict')) {
          const prompt = String(request.messages.find((m) => m.role === 'user')?.content ?? '');
          return { toolCalls: [{ name: 'record_verdict', args: { criteria: [{ id: 'c1', verdict: /→ FAILED/.test(prompt) ? 'needs_revision' : 'satisfied', reason: 'evidence' }] } }] };
        }
        return turns[request.model]?.shift() ?? { text: 'Nothing more.' };
      });
    }
    const before = readFileSync(join(serve.folder, 'sum.js'), 'utf8');

    const page = await openApp(e2e.browser, serve.url);
    const agents = page.getByRole('region', { name: 'Agents', exact: true });
    await agents.waitFor();
    await page.getByLabel('Message', { exact: true }).fill('make sum add');
    await page.getByRole('button', { name: 'Run N candidates…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Run candidates' });
    // The goal comes from the box.
    expect(await dialog.getByLabel('Goal').inputValue()).toBe('make sum add');
    await dialog.getByLabel('Number of candidates').fill('2');
    await expect.poll(() => dialog.getByLabel(/^Model of candidate/).count()).toBe(2);
    await dialog.getByLabel('Model of candidate 1').fill('openai-compatible:cand-a');
    await dialog.getByLabel('Model of candidate 2').fill('openai-compatible:cand-b');
    // Beside each model: the candidate's agent (Deepdesk's own unless an installed one is chosen) and its own instruction.
    expect(await dialog.getByLabel('Agent of candidate 1').inputValue()).toBe('');
    expect(await dialog.getByLabel('Agent of candidate 2').locator('option').allInnerTexts()).toContain('Deepdesk');
    await dialog.getByLabel('Instruction for candidate 2').fill('ATTEMPT-B keep the change small');
    await dialog.getByLabel('Verify commands (one per line)').fill(CHECK);
    await dialog.getByLabel("Approve the candidates' actions without asking").check();
    for (const theme of THEMES) {
      await page.emulateMedia({ colorScheme: theme, reducedMotion: 'reduce' });
      await page.waitForFunction((t) => document.documentElement.dataset.theme === t, theme);
      expect(describeViolations(await seriousViolations(page)), theme).toBe('');
    }
    await dialog.getByRole('button', { name: 'Start' }).click();
    await expect.poll(() => dialog.count(), { timeout: 60_000 }).toBe(0);

    // One item for the set, its candidates under it; each goal reaches its verdict.
    const set = agents.getByRole('list', { name: 'Candidates: make sum add' });
    await expect.poll(() => set.getByRole('listitem').count(), { timeout: 60_000 }).toBe(2);
    await expect.poll(() => set.innerText(), { timeout: 90_000 }).toContain('Goal: achieved');
    await expect.poll(() => set.innerText(), { timeout: 90_000 }).toContain('Goal: unmet');
    expect(readFileSync(join(serve.folder, 'sum.js'), 'utf8')).toBe(before);
    // The second candidate's instruction came after the goal in its first message, and only in its.
    const firstOf = (model: string) => JSON.stringify(serve.model.requests.find((r) => r.model === model && !r.tools?.some((t) => t.function.name === 'record_verdict'))?.messages);
    expect(firstOf('cand-b')).toContain('Instruction for this attempt: ATTEMPT-B keep the change small');
    expect(firstOf('cand-a')).not.toContain('ATTEMPT-B');

    // Compare: the candidate whose change passes the check ranks first though it was started second.
    await agents.getByRole('button', { name: 'Compare', exact: true }).click();
    const compare = page.getByRole('dialog', { name: 'Candidates' });
    // Each column is named by the candidate's number (as the Agents view and `run` number it), in rank order.
    const best = compare.getByRole('region', { name: 'Candidate 2' });
    await expect.poll(() => best.innerText(), { timeout: 60_000 }).toContain('Ranked 1 · achieved');
    expect(await best.innerText()).toContain('node check.js — passed');
    expect(await compare.getByRole('region').first().getAttribute('aria-label')).toBe('Candidate 2');
    expect(await compare.getByRole('region', { name: 'Candidate 1' }).innerText()).toContain('Claimed success while a check failed');
    expect(readFileSync(join(serve.folder, 'sum.js'), 'utf8')).toBe(before);
    await best.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => compare.getByRole('status').innerText()).toContain('Applied candidate 2 to your folder');
    expect(readFileSync(join(serve.folder, 'sum.js'), 'utf8')).toContain('a + b');
  });

  it("without auto-approval a window's candidate asks the person: Needs you in the Agents view, its row shows the question, approved it goes on to its verdict", { timeout: 180_000 }, async () => {
    const serve = await e2e.serve();
    writeFileSync(join(serve.folder, 'sum.js'), 'module.exports = (a, b) => a - b;\n');
    writeFileSync(join(serve.folder, 'check.js'), "const sum = require('./sum');\nif (sum(2, 3) !== 5) { console.error('FAIL'); process.exit(1); }\nconsole.log('ok');\n");
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: serve.folder, stdio: 'ignore' });
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'fixture');
    const write = (body: string): ScriptStep => ({ toolCalls: [{ name: 'execute', args: { command: `printf '%s\\n' 'module.exports = (a, b) => ${body};' > sum.js` } }] });
    const turns: Record<string, ScriptStep[]> = {
      'cand-a': [write('a + b'), { text: 'Changed sum to add.' }],
      'cand-b': [{ text: 'I could not work out what to change.' }],
    };
    for (let i = 0; i < 60; i++) {
      serve.model.push((request: RecordedRequest): ScriptStep => {
        if (request.tools?.some((t) => t.function.name === 'record_verdict')) {
          const prompt = String(request.messages.find((m) => m.role === 'user')?.content ?? '');
          return { toolCalls: [{ name: 'record_verdict', args: { criteria: [{ id: 'c1', verdict: /→ FAILED/.test(prompt) ? 'needs_revision' : 'satisfied', reason: 'evidence' }] } }] };
        }
        return turns[request.model]?.shift() ?? { text: 'Nothing more.' };
      });
    }
    const before = readFileSync(join(serve.folder, 'sum.js'), 'utf8');
    const page = await openApp(e2e.browser, serve.url);
    const agents = page.getByRole('region', { name: 'Agents', exact: true });
    await agents.waitFor();
    await page.getByLabel('Message', { exact: true }).fill('make sum add');
    await page.getByRole('button', { name: 'Run N candidates…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Run candidates' });
    await dialog.getByLabel('Number of candidates').fill('2');
    await dialog.getByLabel('Model of candidate 1').fill('openai-compatible:cand-a');
    await dialog.getByLabel('Model of candidate 2').fill('openai-compatible:cand-b');
    await dialog.getByLabel('Verify commands (one per line)').fill(CHECK);
    expect(await dialog.getByLabel("Approve the candidates' actions without asking").isChecked()).toBe(false);
    await dialog.getByRole('button', { name: 'Start' }).click();

    const set = agents.getByRole('list', { name: 'Candidates: make sum add' });
    await expect.poll(() => set.getByRole('listitem').count(), { timeout: 60_000 }).toBe(2);
    const first = set.getByRole('listitem').nth(0);
    await expect.poll(() => first.locator('.agent-state').innerText(), { timeout: 60_000 }).toBe('Needs you');
    // Its row opens it in the window, with its question.
    await first.getByRole('button').click();
    await approval(page).waitFor({ timeout: 60_000 });
    // Its command, then the host's verify step (it asks as the agent's own commands do): each approved in the window.
    await expect
      .poll(
        async () => {
          const button = approval(page).getByRole('button', { name: 'Approve', exact: true });
          if ((await button.count()) > 0) await button.first().click({ timeout: 2_000 }).catch(() => undefined);
          return first.innerText();
        },
        { timeout: 90_000, interval: 500 },
      )
      .toContain('Goal: achieved');
    expect(readFileSync(join(serve.folder, 'sum.js'), 'utf8')).toBe(before);
  });
});

describe('candidates from a sandbox thread', () => {
  it("Run N candidates… in a Daytona thread offers each candidate its own Daytona sandbox: one is sent the folder, the other forked from it, and the set is ranked with the person's folder untouched", { timeout: 240_000 }, async () => {
    const daytona = await startDaytonaStandin();
    try {
      const folder = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-e2e-cand-sandbox-')));
      writeFileSync(join(folder, 'sum.js'), 'module.exports = (a, b) => a - b;\n');
      writeFileSync(join(folder, 'check.js'), "const sum = require('./sum');\nif (sum(2, 3) !== 5) { console.error('FAIL'); process.exit(1); }\nconsole.log('ok');\n");
      const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: folder, stdio: 'ignore' });
      git('init', '-q', '-b', 'main');
      git('add', '.');
      git('commit', '-qm', 'fixture');
      const serve = await e2e.serve({ folder, env: { ...NO_PROVIDER_KEYS, ...daytona.env } });
      const write = (body: string): ScriptStep => ({ toolCalls: [{ name: 'execute', args: { command: `printf '%s\\n' 'module.exports = (a, b) => ${body};' > sum.js` } }] });
      const turns: Record<string, ScriptStep[]> = {
        'cand-a': [write('a * b'), { text: 'All tests pass.' }, { text: 'All tests pass.' }, { text: 'All tests pass.' }, { text: 'All tests pass.' }],
        'cand-b': [write('a + b'), { text: 'Changed sum to add.' }],
      };
      for (let i = 0; i < 60; i++) {
        serve.model.push((request: RecordedRequest): ScriptStep => {
          if (request.tools?.some((t) => t.function.name === 'record_verdict')) {
            const prompt = String(request.messages.find((m) => m.role === 'user')?.content ?? '');
            return { toolCalls: [{ name: 'record_verdict', args: { criteria: [{ id: 'c1', verdict: /→ FAILED/.test(prompt) ? 'needs_revision' : 'satisfied', reason: 'evidence' }] } }] };
          }
          return turns[request.model]?.shift() ?? { text: 'Nothing more.' };
        });
      }
      const before = readFileSync(join(folder, 'sum.js'), 'utf8');
      const page = await openApp(e2e.browser, serve.url);
      await page.getByRole('button', { name: 'New thread in a sandbox…', exact: true }).click();
      const start = page.getByRole('dialog', { name: 'New thread in a sandbox…' }).getByRole('button', { name: 'Start in sandbox' });
      await expect.poll(() => start.getAttribute('aria-disabled'), { timeout: 60_000 }).toBe('false');
      await start.click();
      await page.getByRole('note', { name: /^Runs in Daytona/ }).waitFor({ timeout: 60_000 });
      const forksBefore = daytona.forks.length;

      await page.getByLabel('Message', { exact: true }).fill('make sum add');
      await page.getByRole('button', { name: 'Run N candidates…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Run candidates' });
      const inSandboxes = dialog.getByLabel('Each candidate in its own Daytona sandbox');
      expect(await inSandboxes.isChecked()).toBe(true);
      await dialog.getByLabel('Number of candidates').fill('2');
      await dialog.getByLabel('Model of candidate 1').fill('openai-compatible:cand-a');
      await dialog.getByLabel('Model of candidate 2').fill('openai-compatible:cand-b');
      await dialog.getByLabel('Verify commands (one per line)').fill(CHECK);
      await dialog.getByLabel("Approve the candidates' actions without asking").check();
      await dialog.getByRole('button', { name: 'Start' }).click();
      await expect.poll(() => dialog.count(), { timeout: 60_000 }).toBe(0);

      const agents = page.getByRole('region', { name: 'Agents', exact: true });
      const set = agents.getByRole('list', { name: 'Candidates: make sum add' });
      await expect.poll(() => set.getByRole('listitem').count(), { timeout: 60_000 }).toBe(2);
      await expect.poll(() => set.innerText(), { timeout: 120_000 }).toContain('Goal: achieved');
      await expect.poll(() => set.innerText(), { timeout: 120_000 }).toContain('Goal: unmet');
      // The second candidate's sandbox was forked from the first's (sent the folder once).
      expect(daytona.forks.length - forksBefore).toBe(1);
      expect(readFileSync(join(folder, 'sum.js'), 'utf8')).toBe(before);
      await agents.getByRole('button', { name: 'Compare', exact: true }).click();
      // The second candidate ranks first; its column keeps its number.
      const best = page.getByRole('dialog', { name: 'Candidates' }).getByRole('region', { name: 'Candidate 2' });
      await expect.poll(() => best.innerText(), { timeout: 60_000 }).toContain('Ranked 1');
      expect(await best.innerText()).toContain('openai-compatible:cand-b');
      expect(await best.innerText()).toContain('node check.js — passed');
    } finally {
      await daytona.close();
    }
  });
});
