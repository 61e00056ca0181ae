// Stores the content of a folder's first snapshot on a thread of its own. Writing a few
// hundred MB into SQLite makes it checkpoint its write-ahead log now and then (copying pages
// and syncing the file), which on the event loop held it for seconds on a 100,000-file
// folder. Here the main thread only compresses (in zlib's threads) and hands batches over;
// a worker with its own connection inserts them, and it alone checkpoints meanwhile.
//
// The worker's code is a string run with `eval`: one self-contained script needs no file of
// its own beside the bundle (nor a loader for TypeScript in the tests). It is CommonJS, so the
// worker does not take the process's `--input-type=module` (the agent host is started with it:
// the worker then failed at its first `require`, and no folder the host opened ever had its
// first snapshot, so a step compared with nothing saw every file as added).

import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { BLOB_PACKING } from './blob-packing';

const WORKER_SCRIPT = `
const { parentPort, workerData } = require('node:worker_threads');
const { deflateRawSync } = require('node:zlib');
const Database = require(workerData.sqlite);
const { deflateFrom, level, keepRatio } = workerData.packing;
const db = new Database(workerData.file);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('busy_timeout = 10000');
const put = db.prepare('INSERT OR IGNORE INTO blobs (hash, size, zipped, data) VALUES (?, ?, ?, ?)');
const putAll = db.transaction((rows) => {
  for (const r of rows) {
    const data = Buffer.from(r.data.buffer, r.data.byteOffset, r.data.byteLength);
    const z = data.length >= deflateFrom ? deflateRawSync(data, { level }) : null;
    if (z !== null && z.length <= data.length * keepRatio) put.run(r.hash, data.length, 1, z);
    else put.run(r.hash, data.length, 0, data);
  }
});
parentPort.on('message', (message) => {
  if (message.type === 'close') {
    try { db.pragma('wal_checkpoint(PASSIVE)'); } catch {}
    db.close();
    parentPort.postMessage({ closed: true });
    return;
  }
  try {
    putAll(message.rows);
    parentPort.postMessage({ id: message.id });
  } catch (err) {
    parentPort.postMessage({ id: message.id, error: String(err && err.message || err) });
  }
});
`;

/** V8's heap sizes (the agent host holds its young generation small): process-wide, and refused in a worker's options. */
const HEAP_SIZE_FLAG = /^--(max|min)-(semi|old)-space-size$/;

/**
 * The process's Node options without the one that would make the eval'd script a module, nor
 * V8's heap sizes (a worker given one fails to start; they apply to its heap all the same).
 */
export function workerExecArgv(execArgv: readonly string[] = process.execArgv): string[] {
  const out: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i]!;
    const name = arg.split('=', 1)[0]!.replace(/_/g, '-');
    if (arg === '--input-type' || (HEAP_SIZE_FLAG.test(name) && !arg.includes('='))) i++;
    else if (!arg.startsWith('--input-type=') && !arg.startsWith('--experimental-default-type') && !HEAP_SIZE_FLAG.test(name)) out.push(arg);
  }
  return out;
}

export interface NewBlob {
  hash: string;
  data: Buffer;
}

export class BlobWriter {
  private nextId = 0;
  private readonly waiting = new Map<number, { resolve: () => void; reject: (err: Error) => void }>();
  private failure: Error | null = null;
  private readonly worker: Worker;

  private constructor(worker: Worker) {
    this.worker = worker;
    worker.on('message', (message: { id?: number; error?: string }) => {
      if (message.id === undefined) return;
      const waiter = this.waiting.get(message.id);
      this.waiting.delete(message.id);
      if (message.error !== undefined) waiter?.reject(new Error(message.error));
      else waiter?.resolve();
    });
    const fail = (err: Error): void => {
      this.failure = err;
      for (const waiter of this.waiting.values()) waiter.reject(err);
      this.waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', () => fail(new Error('the checkpoint writer stopped')));
  }

  /** A writer for the store's database file, or undefined where a worker cannot run (the caller writes itself). */
  static start(db: { readonly memory: boolean; readonly name: string }): BlobWriter | undefined {
    if (db.memory) return undefined;
    try {
      const sqlite = createRequire(import.meta.url).resolve('better-sqlite3');
      return new BlobWriter(new Worker(WORKER_SCRIPT, { eval: true, execArgv: workerExecArgv(), workerData: { file: db.name, sqlite, packing: BLOB_PACKING } }));
    } catch {
      return undefined;
    }
  }

  put(rows: readonly NewBlob[]): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise<void>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ type: 'put', id, rows });
    });
  }

  /** Lets the worker checkpoint what it wrote and stop. */
  async close(): Promise<void> {
    if (this.failure) return;
    const closed = new Promise<void>((resolve) => {
      this.worker.on('message', (message: { closed?: boolean }) => {
        if (message.closed) resolve();
      });
      this.worker.once('exit', () => resolve());
    });
    this.worker.postMessage({ type: 'close' });
    await closed;
    await this.worker.terminate();
  }
}
