// The person's small JSON files under faults, with real files and real processes: unreadable
// files are kept aside and told, invalid fields never cost the valid ones, saves are true
// (nothing changes unless the file was written), several processes merge under a lock that a
// killed holder cannot wedge, and a change on disk reaches the listeners.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type * as Rolldown from 'rolldown';
import { fieldsShape, JsonFileStore, recordShape, type JsonFileProblem } from './json-file-store';

let dir: string;
let work: string;
let child: string;
const stores: JsonFileStore<Record<string, unknown>>[] = [];
const children: ChildProcess[] = [];

// A child process that uses the store the way another Deepdesk process does.
const CHILD_SOURCE = (storeModule: string, zodModule: string) => `
  import { closeSync, openSync, readdirSync, readFileSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
  import { dirname } from 'node:path';
  import { z } from ${JSON.stringify(zodModule)};
  import { JsonFileStore, recordShape, fieldsShape } from ${JSON.stringify(storeModule)};
  const [mode, path, arg] = process.argv.slice(2);
  if (mode === 'inc') {
    const store = new JsonFileStore({ path, shape: recordShape(z.number()) });
    for (let i = 0; i < Number(process.argv[5]); i++) store.update((cur) => ({ ...cur, shared: (cur.shared ?? 0) + 1, [arg]: (cur[arg] ?? 0) + 1 }));
    console.log('done');
  } else if (mode === 'forever') {
    const store = new JsonFileStore({ path, shape: recordShape(z.number()) });
    let n = 0;
    for (;;) {
      store.update((cur) => ({ ...cur, count: (cur.count ?? 0) + 1, ['k' + (n % 50)]: n }));
      if (n++ === 0) console.log('started');
    }
  } else if (mode === 'set') {
    const store = new JsonFileStore({ path, shape: recordShape(z.number()) });
    store.update((cur) => ({ ...cur, [arg]: Number(process.argv[5]) }));
    console.log('done');
  } else if (mode === 'full-disk') {
    const shape = fieldsShape({ theme: z.enum(['dark', 'light', 'system']).optional(), note: z.string().optional() });
    const store = new JsonFileStore({ path, shape });
    store.update((cur) => ({ ...cur, theme: 'dark' }));
    const pad = arg + '.pad';
    writeFileSync(pad, Buffer.alloc(4096, 1));
    // Fill the disk.
    const fd = openSync(arg, 'w');
    const block = Buffer.alloc(64 * 1024, 1);
    try { for (;;) writeSync(fd, block); } catch { /* full */ }
    try { for (;;) writeSync(fd, block.subarray(0, 512)); } catch { /* full */ }
    try { for (;;) writeSync(fd, block.subarray(0, 1)); } catch { /* full */ }
    closeSync(fd);
    let error = null;
    try {
      store.update((cur) => ({ ...cur, theme: 'light', note: 'x'.repeat(10000) }));
    } catch (err) {
      error = err.message;
    }
    const fresh = new JsonFileStore({ path, shape });
    const first = { error, value: store.current(), fresh: fresh.current(), file: readFileSync(path, 'utf8') };
    // One page free again (the lock fits, the new contents do not), and the file made
    // unreadable in place: the failed save leaves it where and as it was.
    unlinkSync(pad);
    const fd2 = openSync(path, 'r+');
    writeSync(fd2, 'X', 0);
    closeSync(fd2);
    let error2 = null;
    try {
      store.update((cur) => ({ ...cur, theme: 'light', note: 'x'.repeat(10000) }));
    } catch (err) {
      error2 = err.message;
    }
    const second = { error: error2, value: store.current(), file: readFileSync(path, 'utf8'), entries: readdirSync(dirname(path)).sort() };
    console.log(JSON.stringify({ first, second }));
  }
`;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'deepdesk-jfs-child-'));
  const entry = join(work, 'child.ts');
  writeFileSync(entry, CHILD_SOURCE(fileURLToPath(new URL('./json-file-store.ts', import.meta.url)), createRequire(import.meta.url).resolve('zod')));
  child = join(work, 'child.mjs');
  const { build } = (await import('rolldown')) as typeof Rolldown;
  await build({ input: entry, platform: 'node', logLevel: 'silent', output: { file: child, format: 'esm' } });
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'deepdesk-jfs-'));
});
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const s of stores.splice(0)) s.close();
  rmSync(dir, { recursive: true, force: true });
});

const settingsShape = fieldsShape({
  model: z.string().optional(),
  theme: z.enum(['dark', 'light', 'system']).optional(),
  contextWindow: z.number().int().positive().optional(),
  rules: z.array(z.object({ decision: z.enum(['allow', 'ask', 'deny']), paths: z.array(z.string()).optional() })).optional(),
});

function open<T extends Record<string, unknown>>(store: JsonFileStore<T>): JsonFileStore<T> {
  stores.push(store as unknown as JsonFileStore<Record<string, unknown>>);
  return store;
}

function settingsStore(options: { problems?: JsonFileProblem[]; lockTimeoutMs?: number; staleLockMs?: number; readOnly?: boolean } = {}) {
  const store = open(new JsonFileStore({ path: join(dir, 'settings.json'), shape: settingsShape, ...options }));
  if (options.problems) store.onProblem((p) => options.problems!.push(p));
  return store;
}

function runChild(args: string[]): ChildProcess {
  const c = spawn(process.execPath, [child, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(c);
  return c;
}

function finished(c: ChildProcess): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  c.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  c.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((done) => c.on('exit', (code) => done({ code, stdout, stderr })));
}

function printed(c: ChildProcess, text: string): Promise<void> {
  return new Promise((done, fail) => {
    let out = '';
    c.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes(text)) done();
    });
    c.on('exit', (code) => fail(new Error(`child exited (${code}) before printing ${text}`)));
  });
}

const asides = (name = 'settings.json') => readdirSync(dir).filter((f) => f.startsWith(`${name}.corrupt-`));

describe('reading', () => {
  it('a read-only reader leaves an unparsable file where it is, for the reader that tells the person to keep aside', () => {
    const file = join(dir, 'settings.json');
    writeFileSync(file, '{"model":"x","rules":[');
    const problems: JsonFileProblem[] = [];
    expect(settingsStore({ problems, readOnly: true }).current()).toEqual({});
    expect(readFileSync(file, 'utf8')).toBe('{"model":"x","rules":[');
    expect(asides()).toHaveLength(0);
    expect(problems[0]!.message).toContain('left as it is');
    // The one that tells the person still keeps it aside and says where.
    const told: JsonFileProblem[] = [];
    settingsStore({ problems: told });
    expect(asides()).toHaveLength(1);
    expect(told[0]!.movedTo).toBe(join(dir, asides()[0]!));
  });

  it('a missing file is empty; a save creates it, private, and reads back', () => {
    const store = settingsStore();
    expect(store.read()).toEqual({ value: {} });
    store.update((cur) => ({ ...cur, theme: 'dark' }));
    const file = join(dir, 'settings.json');
    expect(readFileSync(file, 'utf8')).toBe('{\n  "theme": "dark"\n}\n');
    if (process.platform !== 'win32') expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(settingsStore().current()).toEqual({ theme: 'dark' });
  });

  it.each([
    ['truncated', '{"model":"anthropic:x","rules":[{"decision":"deny"'],
    ['garbage', 'PK\u0003\u0004\u0000\u0000binary'],
    ['empty', ''],
    ['an array', '[{"model":"x"}]'],
    ['a string', '"settings"'],
    ['null', 'null'],
  ])('a file that is %s is moved aside with its bytes, told once, and a save starts afresh', (_kind, text) => {
    const file = join(dir, 'settings.json');
    writeFileSync(file, text);
    const problems: JsonFileProblem[] = [];
    const store = settingsStore({ problems });
    expect(store.current()).toEqual({});
    expect(existsSync(file)).toBe(false);
    expect(asides()).toHaveLength(1);
    const movedTo = join(dir, asides()[0]!);
    expect(readFileSync(movedTo, 'utf8')).toBe(text);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ file, movedTo });
    expect(problems[0]!.message).toContain('settings.json');
    expect(problems[0]!.message).toContain(movedTo);
    expect(problems[0]!.message).not.toContain('\n');
    expect(store.read().problem).toEqual(problems[0]);

    // A listener that comes later hears of it too (the window connects after start-up).
    const late: JsonFileProblem[] = [];
    store.onProblem((p) => late.push(p));
    expect(late).toEqual(problems);

    store.update((cur) => ({ ...cur, theme: 'light' }));
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ theme: 'light' });
    expect(readFileSync(movedTo, 'utf8')).toBe(text);
    expect(problems).toHaveLength(1);
    expect(store.read().problem).toBeUndefined();
  });

  it('an invalid field or element is dropped and told; the valid ones are kept; unknown fields stay as written', () => {
    const stored = {
      model: 'anthropic:x',
      theme: 'solarized',
      contextWindow: -5,
      rules: [{ decision: 'deny', paths: ['/secret/**'] }, { decision: 'maybe' }, { decision: 'allow', paths: ['/docs/**'], extra: 1 }],
      newerSetting: { a: [1, 2] },
    };
    const file = join(dir, 'settings.json');
    writeFileSync(file, JSON.stringify(stored));
    const problems: JsonFileProblem[] = [];
    const store = settingsStore({ problems });
    expect(store.current()).toEqual({
      model: 'anthropic:x',
      rules: [{ decision: 'deny', paths: ['/secret/**'] }, { decision: 'allow', paths: ['/docs/**'], extra: 1 }],
    });
    expect(asides()).toEqual([]);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.fields).toEqual(['theme', 'contextWindow', 'rules[1]']);
    expect(problems[0]!.message).toMatch(/settings\.json.*theme.*contextWindow.*rules\[1\]/);

    // Saving one field changes only that field: the invalid and unknown ones stay as they are.
    store.update((cur) => ({ ...cur, model: 'openai:y' }));
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ ...stored, model: 'openai:y' });
    // Saving the invalid field itself replaces it.
    store.update((cur) => ({ ...cur, theme: 'dark' }));
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ theme: 'dark', contextWindow: -5, newerSetting: { a: [1, 2] } });
    // Removing a field removes it.
    store.update(({ contextWindow: _drop, model: _model, ...rest }) => rest);
    expect(JSON.parse(readFileSync(file, 'utf8'))).not.toHaveProperty('model');
  });

  it('a save that would write an invalid value is refused and changes nothing', () => {
    const store = settingsStore();
    store.update((cur) => ({ ...cur, theme: 'dark' }));
    expect(() => store.update((cur) => ({ ...cur, theme: 'neon' as 'dark' }))).toThrow(/theme/);
    expect(store.current()).toEqual({ theme: 'dark' });
    expect(JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8'))).toEqual({ theme: 'dark' });
  });

  it('a record checks each entry on its own', () => {
    const file = join(dir, 'secrets.json');
    writeFileSync(file, JSON.stringify({ 'api-key:anthropic': 'sk-1', 'api-key:openai': 42 }));
    const problems: JsonFileProblem[] = [];
    const store = open(new JsonFileStore({ path: file, shape: recordShape(z.string()) }));
    store.onProblem((p) => problems.push(p));
    expect(store.current()).toEqual({ 'api-key:anthropic': 'sk-1' });
    expect(problems[0]!.fields).toEqual(['api-key:openai']);
    expect(problems[0]!.message).not.toContain('sk-1');
    store.update((cur) => ({ ...cur, 'api-key:ollama': 'o' }));
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ 'api-key:anthropic': 'sk-1', 'api-key:openai': 42, 'api-key:ollama': 'o' });
  });
});

describe('saving', () => {
  it('applies the change to the file as it is now, not to a stale copy', () => {
    const a = settingsStore();
    const b = settingsStore();
    expect(b.current()).toEqual({});
    a.update((cur) => ({ ...cur, model: 'anthropic:a' }));
    b.update((cur) => ({ ...cur, theme: 'light' }));
    expect(JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8'))).toEqual({ model: 'anthropic:a', theme: 'light' });
    expect(b.current()).toEqual({ model: 'anthropic:a', theme: 'light' });
    // A sees B's save the next time it looks, even before any watcher fires.
    expect(a.current()).toEqual({ model: 'anthropic:a', theme: 'light' });
  });

  it('four processes saving at once lose nothing', async () => {
    const file = join(dir, 'counters.json');
    const runs = Array.from({ length: 4 }, (_, i) => finished(runChild(['inc', file, `p${i}`, '60'])));
    const results = await Promise.all(runs);
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ shared: 240, p0: 60, p1: 60, p2: 60, p3: 60 });
    expect(readdirSync(dir).sort()).toEqual(['counters.json']);
  });

  it('SIGKILL at random points never leaves a broken file, and a killed holder never wedges the lock', async () => {
    const file = join(dir, 'counters.json');
    let last = 0;
    for (let round = 0; round < 8; round++) {
      const c = runChild(['forever', file]);
      await printed(c, 'started');
      // Let it write for a random while, then kill it wherever it is.
      const until = Date.now() + 5 + Math.floor(Math.random() * 40);
      while (Date.now() < until) await new Promise((r) => setImmediate(r));
      const exited = new Promise((r) => c.once('exit', r));
      c.kill('SIGKILL');
      await exited;
      const value = JSON.parse(readFileSync(file, 'utf8')) as { count: number };
      expect(value.count).toBeGreaterThan(last);
      last = value.count;
      // The next process saves at once, whatever the killed one left: had it waited for the
      // killed holder's lock, it would have failed at the lock timeout.
      const next = await finished(runChild(['set', file, 'after', String(round)]));
      expect(next.code, next.stderr).toBe(0);
      expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ count: last, after: round });
      // A temp file or lock the killed writer left is gone after that save.
      expect(readdirSync(dir).sort()).toEqual(['counters.json']);
    }
  });

  it('waits for a lock a live process holds, then fails clearly and changes nothing; a stale or dead holder is taken over', () => {
    const store = settingsStore({ lockTimeoutMs: 300, staleLockMs: 60_000 });
    store.update((cur) => ({ ...cur, theme: 'dark' }));
    const lock = join(dir, 'settings.json.lock');
    // This test process is alive: its lock is respected.
    writeFileSync(lock, JSON.stringify({ pid: process.pid, time: Date.now(), nonce: 'held' }));
    const started = Date.now();
    expect(() => store.update((cur) => ({ ...cur, theme: 'light' }))).toThrow(/settings\.json.*lock/i);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(store.current()).toEqual({ theme: 'dark' });
    expect(JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8'))).toEqual({ theme: 'dark' });
    expect(readFileSync(lock, 'utf8')).toContain('held');

    // A holder that died.
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    writeFileSync(lock, JSON.stringify({ pid: dead, time: Date.now(), nonce: 'dead' }));
    store.update((cur) => ({ ...cur, theme: 'light' }));
    expect(store.current()).toEqual({ theme: 'light' });
    expect(existsSync(lock)).toBe(false);

    // A live holder that has held it far too long.
    writeFileSync(lock, JSON.stringify({ pid: process.pid, time: Date.now() - 120_000, nonce: 'old' }));
    store.update((cur) => ({ ...cur, theme: 'system' }));
    expect(store.current()).toEqual({ theme: 'system' });
    expect(existsSync(lock)).toBe(false);
  });

  it('on a full disk a save fails, and neither memory nor the file pretend it was saved', async (ctx) => {
    const reason = namespaceUnavailable();
    if (reason) ctx.skip(reason);
    const mount = join(dir, 'small');
    mkdirSync(mount);
    const script = `mount -t tmpfs -o size=256k tmpfs "$1" && exec "$2" "$3" full-disk "$1/settings.json" "$1/filler"`;
    const result = await finished(spawnInNamespace(['sh', '-c', script, 'sh', mount, process.execPath, child]));
    expect(result.code, result.stderr).toBe(0);
    const { first, second } = JSON.parse(result.stdout.trim()) as {
      first: { error: string | null; value: unknown; fresh: unknown; file: string };
      second: { error: string | null; value: unknown; file: string; entries: string[] };
    };
    expect(first.error).toMatch(/settings\.json/);
    expect(first.error).toMatch(/ENOSPC|no space/i);
    expect(first.value).toEqual({ theme: 'dark' });
    expect(first.fresh).toEqual({ theme: 'dark' });
    expect(JSON.parse(first.file)).toEqual({ theme: 'dark' });
    // The unreadable file was not moved (nor copied) by a save that failed; the last good
    // contents stay in use.
    expect(second.error).toMatch(/ENOSPC|no space/i);
    expect(second.file).toBe(`X${first.file.slice(1)}`);
    expect(second.value).toEqual({ theme: 'dark' });
    expect(second.entries).toEqual(['filler', 'settings.json']);
  });
});

describe('watching', () => {
  it('a save by another process reaches the listeners', async () => {
    const file = join(dir, 'counters.json');
    const store = open(new JsonFileStore({ path: file, shape: recordShape(z.number()) }));
    const seen: unknown[] = [];
    store.onChange((value) => seen.push(value));
    const r = await finished(runChild(['set', file, 'other', '7']));
    expect(r.code, r.stderr).toBe(0);
    await expect.poll(() => seen, { timeout: 60_000 }).toContainEqual({ other: 7 });
  });

  it('a file made unreadable while running is not moved by the watcher: the last good contents stay, and it is told', async () => {
    const problems: JsonFileProblem[] = [];
    const store = settingsStore({ problems });
    store.update((cur) => ({ ...cur, model: 'anthropic:x', rules: [{ decision: 'deny', paths: ['/secret/**'] }] }));
    store.onChange(() => undefined);
    writeFileSync(join(dir, 'settings.json'), '{"model": "anthropic:x", "rules": [');
    await expect.poll(() => problems.length, { timeout: 60_000 }).toBe(1);
    expect(problems[0]!.movedTo).toBeUndefined();
    expect(store.current()).toEqual({ model: 'anthropic:x', rules: [{ decision: 'deny', paths: ['/secret/**'] }] });
    expect(existsSync(join(dir, 'settings.json'))).toBe(true);
    // A save under the lock keeps the unreadable file aside and builds on the last good contents.
    store.update((cur) => ({ ...cur, theme: 'dark' }));
    expect(JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8'))).toEqual({ model: 'anthropic:x', rules: [{ decision: 'deny', paths: ['/secret/**'] }], theme: 'dark' });
    expect(asides()).toHaveLength(1);
    expect(problems).toHaveLength(2);
    expect(problems[1]!.movedTo).toBe(join(dir, asides()[0]!));
  });
});

/** Why a private mount namespace with a tmpfs cannot be made here, or undefined when it can. */
function namespaceUnavailable(): string | undefined {
  if (process.platform !== 'linux') return 'needs Linux mount namespaces';
  if (process.getuid?.() !== 0) return 'needs root to mount a tmpfs in a private mount namespace';
  const probe = spawnSync('unshare', ['-m', '--propagation', 'private', 'true']);
  if (probe.error || probe.status !== 0) return `unshare -m is not usable here: ${probe.error?.message ?? probe.stderr.toString().trim()}`;
  return undefined;
}

function spawnInNamespace(command: string[]): ChildProcess {
  const c = spawn('unshare', ['-m', '--propagation', 'private', ...command], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(c);
  return c;
}
