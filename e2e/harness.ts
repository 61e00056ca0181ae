// End-to-end harness: the scripted model server, `deepdesk serve` as a person starts it
// (the built bin), and a headless Chromium (found or obtained by the test set-up) driven by
// playwright-core.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { startScriptedServer, type ScriptedServer, type ScriptStep } from '../src-main/core/models/testing/scripted-server';
import { chromiumPath } from '../scripts/test-setup/system-tools';
import { removeDataDir } from '../src-main/app/host/testing/remove-data-dir';

export const repo = resolve(import.meta.dirname, '..');
export const screenshotDir = join(repo, 'test-results', 'screenshots');

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
  '--disable-quic',
];

export interface ServeHandle {
  url: string;
  origin: string;
  folder: string;
  dataDir: string;
  model: ScriptedServer;
  process: ChildProcess;
  /** What it printed on stderr so far. */
  stderr(): string;
  /** Ends the process and the model server (once); `keepData` leaves the folder and data folder for a restart on them. */
  /** `keepModel`: the scripted model server goes on (a run the agent host keeps going still talks to it). */
  stop(options?: { keepData?: boolean; keepModel?: boolean }): Promise<void>;
}

export async function startServe(
  options: {
    script?: ScriptStep[];
    withModel?: boolean;
    extraArgs?: string[];
    /** Reuse these (e.g. to restart on the same data). */
    folder?: string;
    dataDir?: string;
    /** Written to settings.json before start. */
    settings?: Record<string, unknown>;
    /**
     * Start without `--folder`, as `deepdesk serve` run bare: the window opens on `Open folder`.
     * `folder` is still made (empty), for the test to open from the window.
     */
    noFolder?: boolean;
    /** Added to serve's environment (e.g. `ANTHROPIC_API_KEY: ''` so a key of this machine is not used). */
    env?: Record<string, string>;
    /**
     * Open on the folder as on a folder never opened before, where the offer of modes opens by
     * itself (e2e/window-iii-layout.test.ts). Otherwise it was already shown once there (its
     * button stays until a mode is chosen), so it covers nothing the other tests use.
     */
    firstOpen?: boolean;
  } = {},
): Promise<ServeHandle> {
  const folder = options.folder ?? mkdtempSync(join(tmpdir(), 'deepdesk-e2e-folder-'));
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'deepdesk-e2e-data-'));
  if (options.settings) writeFileSync(join(dataDir, 'settings.json'), JSON.stringify(options.settings));
  const modes = join(dataDir, 'folder-modes.json');
  if (options.firstOpen !== true && !existsSync(modes)) writeFileSync(modes, JSON.stringify({ [realpathSync(folder)]: { offerShown: true } }));
  // A home of its own, so the terminal's bash does not run this machine's ~/.bashrc.
  const home = mkdtempSync(join(tmpdir(), 'deepdesk-e2e-home-'));
  const model = await startScriptedServer(options.script ?? []);
  const modelArgs = options.withModel === false ? [] : ['--model', 'openai-compatible:scripted-model', '--base-url', model.url];
  const folderArgs = options.noFolder === true ? [] : ['--folder', folder];
  const child = spawn(process.execPath, [join(repo, 'bin/deepdesk.mjs'), 'serve', ...folderArgs, '--data-dir', dataDir, '--port', '0', ...modelArgs, ...(options.extraArgs ?? [])], {
    cwd: repo,
    env: { ...process.env, OPENAI_API_KEY: '', HOME: home, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = await serveUrl(child, () => stderr);
  let modelClosed = false;
  return {
    url,
    origin: new URL(url).origin,
    folder,
    dataDir,
    model,
    process: child,
    stderr: () => stderr,
    async stop(stopOptions = {}) {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
      if (!modelClosed && stopOptions.keepModel !== true) {
        modelClosed = true;
        await model.close();
      }
      if (stopOptions.keepData) return;
      removeDataDir(dataDir, folder);
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** The `Deepdesk is running at …` link a starting `deepdesk serve` prints (rejects if it exits or takes over 20 s). */
export function serveUrl(child: ChildProcess, stderr: () => string): Promise<string> {
  return new Promise<string>((resolveUrl, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`deepdesk serve did not start in time: ${stderr()}`)), 20_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /Deepdesk is running at (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolveUrl(m[1]!);
      }
    });
    child.on('exit', (code) => reject(new Error(`deepdesk serve exited with ${code}: ${stderr()}`)));
  });
}

/** Throws the test set-up's install instruction when this machine has no Chromium. */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS, headless: true });
}

export interface OpenAppOptions {
  /** The window's size (default 1400×900). */
  width?: number;
  height?: number;
  /** Runs in the page before its own scripts (e.g. to seed localStorage). */
  init?: () => void;
  /** The page's clock is the test's from the start (`page.clock`: a notice's expiry passes at once). */
  clock?: boolean;
  /** Wait for the workspace's message box (default); false when there may be no folder yet. */
  waitForWorkspace?: boolean;
}

/** A page of the window in a context of its own; a page error fails the test. */
/** A failed test's windows, as a screen reader has them: what CI prints says what the page showed. */
export async function printFailedPages(task: { result?: { state?: string } }, browser: Browser | undefined): Promise<void> {
  if (task.result?.state !== 'fail') return;
  for (const page of browser?.contexts().flatMap((context) => context.pages()) ?? []) {
    const shown = await page.locator('body').ariaSnapshot({ timeout: 5_000 }).catch((err: unknown) => `(no snapshot: ${String(err)})`);
    console.error(`The page at ${page.url()} when the test failed:\n${shown.slice(0, 6_000)}`);
  }
}

export async function openApp(browser: Browser, url: string, options: OpenAppOptions = {}): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: options.width ?? 1400, height: options.height ?? 900 } });
  const page = await context.newPage();
  page.on('pageerror', (err) => {
    throw err;
  });
  if (options.init) await page.addInitScript(options.init);
  if (options.clock === true) await page.clock.install();
  await page.goto(url);
  // Exact: an approval shown by then has a "Message to the agent" box too.
  if (options.waitForWorkspace !== false) {
    await page.getByRole('textbox', { name: 'Message', exact: true }).waitFor();
    // The thread the window opened on has loaded: what a test does next is not raced by it.
    await page.getByRole('status', { name: 'Loading the thread' }).waitFor({ state: 'detached', timeout: 60_000 });
  }
  return page;
}

/** A socket frame as JSON (undefined when it is not). */
export function frameOf<T>(m: string | Buffer): T | undefined {
  try {
    return typeof m === 'string' ? (JSON.parse(m) as T) : undefined;
  } catch {
    return undefined;
  }
}

export interface RelayOptions {
  holding?: boolean;
  refuseFirst?: boolean;
  sendAfterLoad?: boolean;
  /** Run in the page before its own scripts. */
  init?: () => void;
}

/** The host's answers to `threads.create`, held back while `holding`. */
export interface CreatesGate {
  creates: unknown[];
  held: Array<() => void>;
  holding: boolean;
  release(): void;
}

/**
 * Opens `url` in a context of its own and relays its socket, holding the host's answers to `threads.create` back while
 * `holding` (the first one is refused instead, when `refuseFirst`). With `sendAfterLoad` a
 * `threads.send` reaches the host only after an answer to `threads.get` has reached the page.
 */
export async function openRelayingCreates(browser: Browser, url: string, { holding = true, refuseFirst = false, sendAfterLoad = false, init }: RelayOptions = {}): Promise<{ context: BrowserContext; page: Page; gate: CreatesGate }> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const gate: CreatesGate = {
    creates: [],
    held: [],
    holding,
    release(): void {
      gate.holding = false;
      for (const answer of gate.held.splice(0)) answer();
    },
  };
  let refuse = refuseFirst;
  const parse = (m: string | Buffer) => frameOf<{ id?: unknown; method?: unknown }>(m);
  const gets: unknown[] = [];
  let sends: Array<() => void> | undefined = sendAfterLoad ? [] : undefined;
  await context.routeWebSocket(/.*/, (ws) => {
    const server = ws.connectToServer();
    ws.onMessage((m) => {
      const call = parse(m);
      if (call?.method === 'threads.create') gate.creates.push(call.id);
      if (call?.method === 'threads.get') gets.push(call.id);
      if (call?.method === 'threads.send' && sends !== undefined) sends.push(() => server.send(m));
      else server.send(m);
    });
    server.onMessage((m) => {
      const id = parse(m)?.id;
      if (gets.includes(id) && sends !== undefined) {
        ws.send(m);
        for (const send of sends) send();
        sends = undefined;
      } else if (id === undefined || !gate.creates.includes(id)) ws.send(m);
      else if (refuse) {
        refuse = false;
        ws.send(JSON.stringify({ id, error: { message: 'the thread store is full', code: 'failed' } }));
      } else if (gate.holding) gate.held.push(() => ws.send(m));
      else ws.send(m);
    });
  });
  if (init) await context.addInitScript(init);
  const page = await context.newPage();
  page.on('pageerror', (err) => {
    throw err;
  });
  await page.goto(url);
  return { context, page, gate };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(screenshotDir, { recursive: true });
  await page.screenshot({ path: join(screenshotDir, `${name}.png`), fullPage: false });
}

// New thread is pressed with the keyboard in these tests, not clicked: the Agents view above
// the thread list keeps its height between no row and one (e2e/window-iii-layout), but not
// with more, and a button that moves can have a click aimed at it land on what took its place
// (CI failed twice so, right after a run).

/** Types `text` into the message box and presses Send, as a person does. */
export async function sendMessage(page: Page, text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Message', exact: true }).fill(text);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
}

export const conversation = (page: Page) => page.getByRole('log', { name: 'Conversation' });

/** The cards of `tool`'s calls, named by tool, target and status (`execute npm test — Failed · exit 1`). */
export const toolCard = (page: Page, tool: string) => conversation(page).getByRole('article', { name: new RegExp(`^${tool} `) });

/** The inline approval of a tool call (SPEC §6). */
export const approval = (page: Page) => conversation(page).getByRole('group', { name: 'Approve tool call' });

/**
 * An MCP server's command held until `gate` exists (the test writes it): a server still
 * starting, for as long as the test needs, with no clock to race. Run as `node -e HELD gate server`.
 */
export const heldServerArgs = (gate: string, server: string): string[] => [
  '-e',
  "const [gate, server] = process.argv.slice(1); const wait = setInterval(() => { if (require('node:fs').existsSync(gate)) { clearInterval(wait); import(server); } }, 100);",
  gate,
  server,
];

export interface E2ESession {
  /** The browser, launched once for the file. */
  readonly browser: Browser;
  /** Starts `deepdesk serve` as startServe does; every one started is stopped after its test. */
  serve(options?: Parameters<typeof startServe>[0]): Promise<ServeHandle>;
}

/** Registers a test file's browser and the serve processes of each test (launched, checked, stopped). */
export function useE2ESession(): E2ESession {
  let browser: Browser | undefined;
  const started: ServeHandle[] = [];
  beforeAll(async () => {
    if (!existsSync(join(repo, 'out/renderer/index.html'))) throw new Error('run `npm run build` before the end-to-end tests (npm test does)');
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async ({ task }) => {
    await printFailedPages(task, browser);
    // The latest first: a restarted one may run on the data of one stopped earlier.
    for (const serve of started.splice(0).reverse()) await serve.stop();
  });
  return {
    get browser(): Browser {
      if (!browser) throw new Error('the browser starts in beforeAll');
      return browser;
    },
    async serve(options) {
      const serve = await startServe(options);
      started.push(serve);
      return serve;
    },
  };
}
