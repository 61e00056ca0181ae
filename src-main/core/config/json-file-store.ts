// The person's small JSON files (settings, stored keys, folder modes, window bounds, and the
// MCP, hooks and trust files to come), as durable as the databases:
// - read: a file that cannot be parsed is moved aside (`<name>.corrupt-<time>`) and told,
//   never taken for a missing one; each field (and each element of a list, each entry of a
//   record) is checked on its own, so one bad value never costs the valid ones;
// - update: under a cross-process lock, the change is applied to the file as it is now (other
//   processes may have saved since we read it), written to a temp file, fsynced and renamed
//   (and the folder fsynced); only then does the value in memory change and listeners hear;
//   a failed write throws and changes nothing;
// - fields a save does not change are written back exactly as they were, including fields
//   this version does not know (a newer one may have written them) and invalid ones;
// - watch: a change by another process reaches onChange listeners.
//
// A new file of this kind needs a shape (fieldsShape or recordShape with zod schemas) and a
// path: `new JsonFileStore({ path, shape, onProblem })`.
//
// The lock is a file `<name>.lock` created atomically (link of a complete temp file, or
// O_EXCL) that names its holder (pid, host, time, a nonce). A holder whose process is gone,
// or that has held it for longer than `staleLockMs`, is taken over; otherwise a save waits
// (bounded by `lockTimeoutMs`) and then fails with an error naming the holder. Everything is
// synchronous: a save takes a few milliseconds, and callers (the app's handlers, the Electron
// shell on quit) need it done when they go on. No dependency: proper-lockfile does the same
// with mkdir and an mtime heartbeat, but it is asynchronous only and its staleness rule (no
// pid) would make a crashed window's lock block saves for its whole stale period.

import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  watch,
  writeSync,
  type FSWatcher,
} from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../text/json-depth';
import { readConfigFile } from './read-config-file';
import { isProcessAlive } from '../process/process-tree';

export type JsonObject = Record<string, unknown>;

/** Something wrong with a file, in one line for the person. */
/** `record` without its entry `key`; the same object when it has none. */
export function withoutEntry<V>(record: Record<string, V>, key: string): Record<string, V> {
  if (!Object.hasOwn(record, key)) return record;
  const rest = { ...record };
  delete rest[key];
  return rest;
}

export interface JsonFileProblem {
  /** The file's path. */
  file: string;
  /** One line: what is wrong, what was done, what applies now. */
  message: string;
  /** Where an unreadable file was moved. */
  movedTo?: string;
  /** The fields (or `field[i]`, record keys) that were ignored. */
  fields?: string[];
}

/** How a file's contents are checked: the valid part as a value, and what was left out. */
export interface JsonFileShape<T extends JsonObject> {
  check(raw: JsonObject): { value: T; invalid: Array<{ field: string; reason: string }> };
}

type FieldsOf<S extends z.ZodRawShape> = { [K in keyof S]?: Exclude<z.output<S[K]>, undefined> };

/**
 * An object whose fields are checked one by one (all optional: a missing field is the
 * caller's default). A list field keeps its valid elements, a record field its valid
 * entries; unknown fields are left out of the value and written back untouched.
 */
export function fieldsShape<S extends z.ZodRawShape>(fields: S): JsonFileShape<FieldsOf<S>> {
  return {
    check(raw) {
      const value: JsonObject = {};
      const invalid: Array<{ field: string; reason: string }> = [];
      for (const [field, schema] of Object.entries(fields) as Array<[string, z.ZodType]>) {
        if (!Object.hasOwn(raw, field) || raw[field] === undefined) continue;
        const checked = checkValue(field, schema, raw[field]);
        invalid.push(...checked.invalid);
        if (checked.ok) put(value, field, checked.value);
      }
      return { value: value as FieldsOf<S>, invalid };
    },
  };
}

/** An object of entries of one kind (keys are free), each entry checked on its own. */
export function recordShape<V>(entry: z.ZodType<V>): JsonFileShape<Record<string, V>> {
  return {
    check(raw) {
      const value: Record<string, V> = {};
      const invalid: Array<{ field: string; reason: string }> = [];
      for (const [key, item] of Object.entries(raw)) {
        const checked = entry.safeParse(item);
        if (checked.success) put(value, key, item);
        else invalid.push({ field: key, reason: zodReason(checked.error) });
      }
      return { value, invalid };
    },
  };
}

/** A value checked as written (kept as written when valid); a list element by element, a record entry by entry. */
function checkValue(field: string, schema: z.ZodType, raw: unknown): { ok: boolean; value?: unknown; invalid: Array<{ field: string; reason: string }> } {
  const inner = schema instanceof z.ZodOptional ? (schema.unwrap() as z.ZodType) : schema;
  if (inner instanceof z.ZodArray && Array.isArray(raw)) {
    const element = inner.element as z.ZodType;
    const kept: unknown[] = [];
    const invalid: Array<{ field: string; reason: string }> = [];
    raw.forEach((item, i) => {
      const checked = element.safeParse(item);
      if (checked.success) kept.push(item);
      else invalid.push({ field: `${field}[${i}]`, reason: zodReason(checked.error) });
    });
    // Whatever else the list must satisfy (min length…), on the elements kept.
    const whole = inner.safeParse(kept);
    if (!whole.success) return { ok: false, invalid: [...invalid, { field, reason: zodReason(whole.error) }] };
    return { ok: true, value: kept, invalid };
  }
  if (inner instanceof z.ZodRecord && typeof raw === 'object' && raw !== null && !Array.isArray(raw)) {
    const entry = inner.valueType as z.ZodType;
    const kept: JsonObject = {};
    const invalid: Array<{ field: string; reason: string }> = [];
    for (const [key, item] of Object.entries(raw)) {
      const checked = entry.safeParse(item);
      if (checked.success) put(kept, key, item);
      else invalid.push({ field: `${field}.${key}`, reason: zodReason(checked.error) });
    }
    return { ok: true, value: kept, invalid };
  }
  const checked = schema.safeParse(raw);
  return checked.success ? { ok: true, value: raw, invalid: [] } : { ok: false, invalid: [{ field, reason: zodReason(checked.error) }] };
}

function zodReason(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid';
  const where = issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  return `${where}${issue.message}`;
}

export interface JsonFileStoreOptions<T extends JsonObject> {
  path: string;
  shape: JsonFileShape<T>;
  /** Permission bits of the file (default 0600: these files are the person's). */
  mode?: number;
  /** What applies while the file cannot be used, for the person (default: "the defaults apply"). */
  defaultsText?: string;
  /** Told of every problem once; later listeners can subscribe with onProblem. */
  onProblem?: (problem: JsonFileProblem) => void;
  /** How long a save waits for another process's lock before failing (default 10 s). */
  lockTimeoutMs?: number;
  /** A lock held longer than this is taken over even when its holder lives (default 30 s). */
  staleLockMs?: number;
  /**
   * Only reads: an unreadable file is left where it is (not kept aside). For a one-time read
   * by a process that shows no problem to the person; the one that does keeps it aside and says so.
   */
  readOnly?: boolean;
}

/** A save that did not happen: nothing changed, in memory or on disk. */
export class JsonFileWriteError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'JsonFileWriteError';
  }
}

interface Snapshot<T> {
  /** Identity of what was read (inode, size, times), or 'missing'. */
  key: string;
  /** The text read, or null when there was no file (or it was unreadable). */
  text: string | null;
  raw: JsonObject;
  value: T;
  problem?: JsonFileProblem;
}

type Loaded<T> = { ok: true; snapshot: Snapshot<T> } | { ok: false; key: string; text: string | null; reason: string; code?: string; parseError: boolean };

/** A store's own file is bigger than a hand-written one may be (many trusted entries, many keys). */
const MAX_STORE_BYTES = 16 * 1024 * 1024;
/** A lock holds a pid, a host and a time. */
const MAX_LOCK_BYTES = 64 * 1024;
const DEFAULT_LOCK_TIMEOUT_MS = 10_000;
const DEFAULT_STALE_LOCK_MS = 30_000;
/** Quiet time before a change seen on disk is read. */
const DEBOUNCE_MS = 50;
/** A lock file whose content cannot be read (someone else's doing) is stale after this. */
const UNREADABLE_LOCK_STALE_MS = 2_000;

/** Paths this process is saving right now: a change function that saves the same file would wait for itself. */
const saving = new Set<string>();

export class JsonFileStore<T extends JsonObject> {
  readonly path: string;
  private readonly name: string;
  private readonly dir: string;
  private snapshot: Snapshot<T>;
  private readonly listeners = new Set<(value: T) => void>();
  private readonly problemListeners = new Set<(problem: JsonFileProblem) => void>();
  private readonly problems: JsonFileProblem[] = [];
  private unwatch: (() => void) | undefined;
  private closed = false;

  constructor(private readonly options: JsonFileStoreOptions<T>) {
    this.path = options.path;
    this.name = basename(options.path);
    this.dir = dirname(options.path);
    if (options.onProblem) this.problemListeners.add(options.onProblem);
    this.snapshot = this.firstLoad();
  }

  /** The file's valid contents now: read again when it changed on disk since. Never throws. */
  current(): T {
    this.refresh('look');
    return this.snapshot.value;
  }

  /** The contents now, and what was wrong with the file they came from, if anything. */
  read(): { value: T; problem?: JsonFileProblem } {
    this.refresh('look');
    const { value, problem } = this.snapshot;
    return problem ? { value, problem } : { value };
  }

  /**
   * Applies `change` to the file's current contents under the lock and writes the result.
   * `change` gets a copy of the valid fields and returns the new ones; fields it leaves
   * unchanged (the same value) are written back exactly as they were in the file. Throws
   * JsonFileWriteError when the file could not be written: then nothing changed.
   */
  update(change: (current: T) => T): T {
    if (saving.has(this.path)) throw new Error(`${this.name} is already being saved by this process (a change function must not save the same file)`);
    saving.add(this.path);
    const before = this.snapshot.value;
    try {
      let release: () => void;
      try {
        release = acquireLock(`${this.path}.lock`, this.name, this.options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS, this.options.staleLockMs ?? DEFAULT_STALE_LOCK_MS);
      } catch (err) {
        throw writeError(this.name, err);
      }
      try {
        removeLeftoverTemps(this.dir, this.name);
        // The file as it is now. An unreadable one is kept aside, and the change builds on the
        // last good contents we had (never on an empty state).
        const loaded = this.load();
        let base: Snapshot<T>;
        let aside: { path: string; renamed: boolean; reason: string } | undefined;
        if (loaded.ok) base = loaded.snapshot;
        else if (loaded.parseError) {
          aside = this.keepAside(loaded.reason);
          base = { ...this.snapshot, key: 'missing', text: null, raw: {} };
        } else throw new JsonFileWriteError(`could not save ${this.name}: it cannot be read (${loaded.reason})`, loaded.code);
        try {
          const next = change({ ...base.value });
          const checked = this.options.shape.check(next);
          if (checked.invalid.length > 0) {
            throw new JsonFileWriteError(`could not save ${this.name}: ${checked.invalid.map((i) => `${i.field} (${i.reason})`).join(', ')}`);
          }
          const out = merge(base.raw, base.value, next);
          const text = `${JSON.stringify(out, null, 2)}\n`;
          let key = base.key;
          if (text !== base.text) {
            try {
              writeDurably(this.path, text, this.options.mode ?? 0o600);
            } catch (err) {
              throw writeError(this.name, err);
            }
            key = fileKey(this.path);
          }
          this.snapshot = { key, text, raw: out, value: this.options.shape.check(out).value };
        } catch (err) {
          // Not saved: the unreadable file stays where it was.
          if (aside !== undefined) undoAside(this.path, aside);
          throw err;
        }
        if (aside !== undefined) {
          fsyncFolder(this.dir);
          this.report({
            file: this.path,
            movedTo: aside.path,
            message: `${this.name} could not be read (${aside.reason}); it was moved to ${aside.path} and the change was saved on the last contents that could be read`,
          });
        }
      } finally {
        release();
      }
    } finally {
      saving.delete(this.path);
    }
    if (!sameJson(before, this.snapshot.value)) this.emit(this.snapshot.value);
    return this.snapshot.value;
  }

  /** Called with the new contents whenever they change (a save here, or by another process). */
  onChange(listener: (value: T) => void): () => void {
    this.listeners.add(listener);
    if (this.unwatch === undefined && !this.closed) {
      this.unwatch = watchFile(this.dir, this.name, () => this.refresh('watch'));
    }
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) {
        this.unwatch?.();
        this.unwatch = undefined;
      }
    };
  }

  /** Every problem found so far (replayed at once) and from now on. */
  onProblem(listener: (problem: JsonFileProblem) => void): () => void {
    for (const problem of this.problems) listener(problem);
    this.problemListeners.add(listener);
    return () => this.problemListeners.delete(listener);
  }

  close(): void {
    this.closed = true;
    this.unwatch?.();
    this.unwatch = undefined;
    this.listeners.clear();
  }

  // ------------------------------------------------------------------ internals

  private firstLoad(): Snapshot<T> {
    const loaded = this.load();
    if (loaded.ok) return this.reportInvalid(loaded.snapshot);
    const empty: Snapshot<T> = { key: loaded.key, text: null, raw: {}, value: this.options.shape.check({}).value };
    if (!loaded.parseError || this.options.readOnly === true) {
      return { ...empty, problem: this.report({ file: this.path, message: `${this.name} could not be read (${loaded.reason}); ${this.defaultsText()} for now, and the file is left as it is` }) };
    }
    // Unparsable: keep it aside, under the lock (another process may be replacing it right now).
    let release: (() => void) | undefined;
    try {
      release = acquireLock(`${this.path}.lock`, this.name, this.options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS, this.options.staleLockMs ?? DEFAULT_STALE_LOCK_MS);
    } catch {
      release = undefined;
    }
    try {
      if (release !== undefined) {
        const again = this.load();
        if (again.ok) return this.reportInvalid(again.snapshot);
        if (again.parseError) {
          const problem = this.moveAside(again.reason, this.defaultsText());
          if (problem !== undefined) return { ...empty, key: 'missing', problem };
        }
      }
      return {
        ...empty,
        problem: this.report({ file: this.path, message: `${this.name} could not be read (${loaded.reason}); ${this.defaultsText()} for now, and it will be kept aside at the next save` }),
      };
    } finally {
      release?.();
    }
  }

  private defaultsText(): string {
    return this.options.defaultsText ?? 'the defaults apply';
  }

  private reportInvalid(snapshot: Snapshot<T>): Snapshot<T> {
    const { invalid } = this.options.shape.check(snapshot.raw);
    if (invalid.length === 0) return snapshot;
    const fields = invalid.map((i) => i.field);
    const problem = this.report({
      file: this.path,
      fields,
      message: `${this.name}: ignored ${invalid.map((i) => `${i.field} (${i.reason})`).join(', ')}; everything else in it applies, and the file is left as it is`,
    });
    return { ...snapshot, problem };
  }

  /**
   * Keeps an unreadable file aside before a save replaces it (the lock is held): a hard link
   * (the file stays in place until the save succeeds), else a rename. Throws when neither works.
   */
  private keepAside(reason: string): { path: string; renamed: boolean; reason: string } {
    const path = asidePath(this.path);
    try {
      linkSync(this.path, path);
      return { path, renamed: false, reason };
    } catch {
      try {
        renameSync(this.path, path);
        return { path, renamed: true, reason };
      } catch (err) {
        throw new JsonFileWriteError(`could not save ${this.name}: it cannot be read (${reason}) and could not be kept aside (${errorText(err)})`, errnoCode(err));
      }
    }
  }

  /** Moves an unreadable file aside (the lock is held) and tells the person; undefined when it could not be moved. */
  private moveAside(reason: string, then: string): JsonFileProblem | undefined {
    const movedTo = asidePath(this.path);
    try {
      renameSync(this.path, movedTo);
    } catch {
      return undefined;
    }
    fsyncFolder(this.dir);
    return this.report({ file: this.path, movedTo, message: `${this.name} could not be read (${reason}); it was moved to ${movedTo} and ${then}` });
  }

  private load(): Loaded<T> {
    const read = readConfigFile(this.path, MAX_STORE_BYTES);
    if (!read.ok && read.missing) return { ok: true, snapshot: { key: 'missing', text: null, raw: {}, value: this.options.shape.check({}).value } };
    if (!read.ok) return { ok: false, key: 'unreadable', text: null, reason: read.message, ...(read.code ? { code: read.code } : {}), parseError: false };
    const key = statKey(read.stat);
    const text = read.bytes.toString('utf8');
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      return { ok: false, key, text, reason: text.trim() === '' ? 'the file is empty' : oneLine(errorText(err)), parseError: true };
    }
    if (nestsDeeperThan(parsed)) return { ok: false, key, text, reason: `it is nested deeper than ${MAX_JSON_DEPTH} levels`, parseError: true };
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      return { ok: false, key, text, reason: `it holds ${parsed === null ? 'null' : Array.isArray(parsed) ? 'a list' : `a ${typeof parsed}`}, not an object`, parseError: true };
    }
    const raw = parsed as JsonObject;
    return { ok: true, snapshot: { key, text, raw, value: this.options.shape.check(raw).value } };
  }

  /** Reads the file again if it changed on disk; never moves it aside (that happens under the lock). */
  private refresh(why: 'look' | 'watch'): void {
    if (this.closed || saving.has(this.path)) return;
    const key = fileKey(this.path);
    if (key === this.snapshot.key) return;
    const loaded = this.load();
    if (!loaded.ok) {
      if (loaded.key === this.snapshot.key) return;
      // Keep what we had (another program may be halfway through writing it); a save moves it aside.
      this.snapshot = { ...this.snapshot, key: loaded.key };
      this.report({
        file: this.path,
        message: `${this.name} changed on disk but could not be read (${loaded.reason}); the last contents that could be read stay in use`,
      });
      return;
    }
    const before = this.snapshot.value;
    const snapshot = loaded.snapshot.text === this.snapshot.text ? { ...this.snapshot, key: loaded.snapshot.key } : this.reportInvalid(loaded.snapshot);
    this.snapshot = snapshot;
    if (!sameJson(before, snapshot.value)) {
      // Looking (from inside a caller) must not run listeners in the middle of it.
      if (why === 'look') queueMicrotask(() => this.emit(snapshot.value));
      else this.emit(snapshot.value);
    }
  }

  private emit(value: T): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(value);
      } catch (err) {
        console.error(`deepdesk: a listener of ${this.name} failed`, err);
      }
    }
  }

  private report(problem: JsonFileProblem): JsonFileProblem {
    const known = this.problems.find((p) => p.message === problem.message);
    if (known) return known;
    this.problems.push(problem);
    for (const listener of [...this.problemListeners]) listener(problem);
    return problem;
  }
}

// -------------------------------------------------------------------- merging

/**
 * What to write: the file's fields as they were, except those the change set (new or
 * different values) or removed. A field whose value the change left as it was (the same
 * value) is written back as it was in the file, with any invalid elements it had.
 */
function merge(raw: JsonObject, before: JsonObject, next: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const key of Object.keys(raw)) {
    const known = Object.hasOwn(before, key);
    if (!known) {
      // Unknown or invalid in the file: kept unless the change sets it.
      put(out, key, Object.hasOwn(next, key) && next[key] !== undefined ? next[key] : raw[key]);
    } else if (Object.hasOwn(next, key) && next[key] !== undefined) {
      put(out, key, next[key] === before[key] ? raw[key] : next[key]);
    }
    // A known field the change removed is left out.
  }
  for (const key of Object.keys(next)) {
    if (!Object.hasOwn(out, key) && !Object.hasOwn(raw, key) && next[key] !== undefined) put(out, key, next[key]);
  }
  return out;
}

/** Sets an own property whatever its name (`__proto__` included). */
function put(target: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function sameJson(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

// -------------------------------------------------------------------- writing

/** Temp file in the same folder, fsync, rename over the target, fsync the folder. */
function writeDurably(path: string, text: string, mode: number): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const temp = join(dir, `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  let fd: number | undefined;
  try {
    fd = openSync(temp, 'wx', mode);
    writeAll(fd, Buffer.from(text, 'utf8'));
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(temp, path);
  } catch (err) {
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {
        // Already failing: the first error is the one to report.
      }
    }
    rmSync(temp, { force: true });
    throw err;
  }
  fsyncFolder(dir);
}

function writeAll(fd: number, data: Buffer): void {
  let written = 0;
  while (written < data.length) written += writeSync(fd, data, written, data.length - written);
}

/** Makes a rename durable; not every platform can open a folder for that (best effort). */
function fsyncFolder(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Windows cannot open a folder; some file systems refuse fsync on one.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * What this file's writers leave when they die: temp files of a save or of a lock, and a
 * stale lock renamed away. Under the lock nobody else is saving, so any that exist are
 * leftovers (a process about to link its lock temp file just tries again).
 */
function removeLeftoverTemps(dir: string, name: string): void {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return;
  }
  const hex = '[0-9a-f]{12}';
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const leftover = new RegExp(`^(?:\\.${escaped}\\.(?:lock\\.)?${hex}\\.tmp|${escaped}\\.lock\\.stale-${hex})$`);
  for (const entry of entries) if (leftover.test(entry)) rmSync(join(dir, entry), { force: true });
}

/** Puts an unreadable file back as it was before a save that failed. */
function undoAside(path: string, aside: { path: string; renamed: boolean }): void {
  try {
    if (aside.renamed) {
      if (fileKey(path) === 'missing') renameSync(aside.path, path);
    } else rmSync(aside.path, { force: true });
  } catch {
    // The copy aside stays: nothing is lost either way.
  }
}

function asidePath(path: string): string {
  const time = new Date().toISOString().replace(/[:.]/g, '-');
  for (let n = 0; ; n++) {
    const candidate = `${path}.corrupt-${time}${n === 0 ? '' : `-${n}`}`;
    try {
      statSync(candidate);
    } catch {
      return candidate;
    }
  }
}

function writeError(name: string, err: unknown): JsonFileWriteError {
  if (err instanceof JsonFileWriteError) return err;
  const code = errnoCode(err);
  return new JsonFileWriteError(`could not save ${name}: ${oneLine(errorText(err))}`, code);
}

// -------------------------------------------------------------------- the lock

interface LockHolder {
  pid?: number;
  host?: string;
  time?: number;
  nonce?: string;
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
function sleepSync(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

/** Takes `lockPath` for this process; returns the release. Throws after `timeoutMs` of a live holder. */
function acquireLock(lockPath: string, name: string, timeoutMs: number, staleMs: number): () => void {
  const holder: LockHolder = { pid: process.pid, host: hostname(), time: Date.now(), nonce: randomBytes(8).toString('hex') };
  const content = JSON.stringify(holder);
  const deadline = Date.now() + timeoutMs;
  let delay = 1;
  for (;;) {
    if (tryCreateLock(lockPath, content)) return () => releaseLock(lockPath, holder.nonce!);
    const seen = readLock(lockPath);
    if (seen === undefined) continue; // released meanwhile
    if (isStale(seen, staleMs)) {
      takeOver(lockPath, seen);
      continue;
    }
    if (Date.now() >= deadline) {
      const who = seen.holder.pid !== undefined ? `process ${seen.holder.pid}${seen.holder.host && seen.holder.host !== hostname() ? ` on ${seen.holder.host}` : ''}` : 'another process';
      throw new JsonFileWriteError(`could not save ${name}: ${who} has held its lock (${lockPath}) for ${(timeoutMs / 1000).toFixed(1)} s`, 'ELOCKED');
    }
    sleepSync(delay);
    delay = Math.min(delay * 2, 50);
  }
}

/** Creates the lock with its content in one step (a complete temp file linked into place). */
function tryCreateLock(lockPath: string, content: string): boolean {
  const temp = join(dirname(lockPath), `.${basename(lockPath)}.${randomBytes(6).toString('hex')}.tmp`);
  mkdirSync(dirname(lockPath), { recursive: true, mode: 0o700 });
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeAll(fd, Buffer.from(content));
  } catch (err) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw err;
  }
  closeSync(fd);
  try {
    linkSync(temp, lockPath);
    return true;
  } catch (err) {
    const code = errnoCode(err);
    if (code === 'EEXIST') return false;
    if (code === 'ENOENT') return false; // a saver cleaned our temp file: try again
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS' && code !== 'EXDEV') throw err;
    // No hard links here: O_EXCL (a crash between create and write leaves an unreadable lock, stale soon).
    try {
      const lockFd = openSync(lockPath, 'wx', 0o600);
      try {
        writeAll(lockFd, Buffer.from(content));
      } finally {
        closeSync(lockFd);
      }
      return true;
    } catch (inner) {
      if (errnoCode(inner) === 'EEXIST') return false;
      throw inner;
    }
  } finally {
    rmSync(temp, { force: true });
  }
}

function readLock(lockPath: string): { holder: LockHolder; raw: string; ino: bigint; ageMs: number } | undefined {
  // Next to a folder's own file the lock may be anything the folder holds (a FIFO): read as configuration is.
  const read = readConfigFile(lockPath, MAX_LOCK_BYTES);
  if (!read.ok && read.missing) return undefined;
  if (!read.ok) {
    if (read.code !== 'ENOTREG' && read.code !== 'EFBIG') throw Object.assign(new Error(`${lockPath} ${read.message}`), { code: read.code });
    // Not a lock any Deepdesk wrote: no holder, so stale at once.
    return { holder: {}, raw: '', ino: lstatSync(lockPath, { bigint: true }).ino, ageMs: Number.POSITIVE_INFINITY };
  }
  const raw = read.bytes.toString('utf8');
  let holder: LockHolder = {};
  try {
    const parsed = JSON.parse(raw) as unknown;
    if (typeof parsed === 'object' && parsed !== null) holder = parsed as LockHolder;
  } catch {
    // Unreadable: judged by its age.
  }
  return { holder, raw, ino: read.stat.ino, ageMs: Date.now() - Number(read.stat.mtimeMs) };
}

function isStale(seen: { holder: LockHolder; ageMs: number }, staleMs: number): boolean {
  const { pid, time, host } = seen.holder;
  if (typeof pid !== 'number' || typeof time !== 'number') return seen.ageMs > Math.min(staleMs, UNREADABLE_LOCK_STALE_MS);
  if (Date.now() - time > staleMs) return true;
  if (host !== undefined && host !== hostname()) return false;
  return !isProcessAlive(pid);
}

/**
 * Removes a stale lock. It is renamed away first and checked to be the one judged stale: if
 * another process replaced it meanwhile, that one is put back (link, which never overwrites).
 */
function takeOver(lockPath: string, seen: { raw: string; ino: bigint }): void {
  const aside = `${lockPath}.stale-${randomBytes(6).toString('hex')}`;
  try {
    renameSync(lockPath, aside);
  } catch (err) {
    if (errnoCode(err) === 'ENOENT') return;
    throw err;
  }
  try {
    const st = statSync(aside, { bigint: true });
    const again = readConfigFile(aside, MAX_LOCK_BYTES);
    if (st.ino !== seen.ino || (again.ok ? again.bytes.toString('utf8') : '') !== seen.raw) {
      try {
        linkSync(aside, lockPath);
      } catch {
        // Someone holds a newer lock already; theirs stands.
      }
    }
  } finally {
    rmSync(aside, { force: true });
  }
}

function releaseLock(lockPath: string, nonce: string): void {
  try {
    const seen = readLock(lockPath);
    // Only our own: a lock taken over from us (we were too slow) now belongs to someone else.
    if (seen?.holder.nonce === nonce) unlinkSync(lockPath);
  } catch {
    // Gone already.
  }
}

// -------------------------------------------------------------------- watching

interface FolderWatch {
  watcher: FSWatcher | undefined;
  files: Map<string, Set<() => void>>;
}
const folderWatches = new Map<string, FolderWatch>();

/**
 * Calls `onChange` (debounced) when `name` in `dir` may have changed. The file is replaced by
 * rename, so the folder is watched, once per folder for every file in it.
 */
function watchFile(dir: string, name: string, onChange: () => void): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const fire = (): void => {
    clearTimeout(timer);
    timer = setTimeout(onChange, DEBOUNCE_MS);
    timer.unref?.();
  };
  let entry = folderWatches.get(dir);
  if (entry === undefined) {
    const created: FolderWatch = { watcher: undefined, files: new Map() };
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      created.watcher = watch(dir, { persistent: false }, (_event, filename) => {
        const changed = filename === null ? null : filename.toString();
        for (const [file, callbacks] of created.files) {
          if (changed === null || changed === file) for (const cb of callbacks) cb();
        }
      });
      created.watcher.on('error', () => {
        created.watcher?.close();
        created.watcher = undefined;
      });
    } catch {
      // No watching here (the folder is gone, or no inotify left): changes are still seen
      // the next time the value is looked at.
    }
    folderWatches.set(dir, created);
    entry = created;
  }
  const watchEntry = entry;
  let callbacks = watchEntry.files.get(name);
  if (callbacks === undefined) {
    callbacks = new Set();
    watchEntry.files.set(name, callbacks);
  }
  callbacks.add(fire);
  return () => {
    clearTimeout(timer);
    callbacks.delete(fire);
    if (callbacks.size === 0) watchEntry.files.delete(name);
    if (watchEntry.files.size === 0) {
      watchEntry.watcher?.close();
      folderWatches.delete(dir);
    }
  };
}

// -------------------------------------------------------------------- small helpers

function fileKey(path: string): string {
  try {
    return statKey(statSync(path, { bigint: true }));
  } catch (err) {
    return errnoCode(err) === 'ENOENT' ? 'missing' : 'unreadable';
  }
}

function statKey(st: { ino: bigint; size: bigint; mtimeNs: bigint; ctimeNs: bigint; dev: bigint }): string {
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
}

function errnoCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && typeof (err as { code?: unknown }).code === 'string' ? (err as { code: string }).code : undefined;
}

/** An fs error as a person reads it: "no space left on device (ENOSPC)", not Node's "ENOSPC: …, write". */
function errorText(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const code = errnoCode(err);
  const node = code !== undefined ? /^[A-Z0-9_]+: (.*?), [a-z]+(?: '.*')?$/s.exec(message) : null;
  return node ? `${node[1]} (${code})` : message;
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}
