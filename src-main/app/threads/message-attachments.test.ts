import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newThreadState } from '../../core/agent/types';
import { createDefaultMounts, threadFilesFrom, threadFilesSnapshot } from '../../core/backends/mounts/mounts';
import { openDatabase } from '../../core/backends/store/store';
import { makePng, makeWav } from '../../core/media/testing/fixtures';
import { displayItems } from './display-items';
import { safeAttachmentName, withAttachments } from './message-attachments';
import { ThreadStore } from './thread-store';

let dir: string;
let db: Database.Database;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'deepdesk-attach-'));
  db = openDatabase(join(dir, 'deepdesk.db'));
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const png = makePng(4, 3);
const wav = makeWav(0.25);

describe('withAttachments', () => {
  it('sends a file the model takes as a media part after a line naming it', async () => {
    const mounts = createDefaultMounts({ folder: dir, db, execute: false });
    const content = await withAttachments('look at this', [{ name: 'pic.png', mimeType: 'image/png', data: png.toString('base64') }], {
      mediaInput: ['image/*'],
      files: mounts.threadFiles.attachments,
    });
    expect(content).toEqual([
      { type: 'text', text: 'look at this' },
      { type: 'text', text: `[Attached pic.png (image/png, ${png.length} B)]` },
      { type: 'image', mimeType: 'image/png', data: png.toString('base64'), name: 'pic.png', bytes: png.length },
    ]);
    expect(mounts.threadFiles.attachments.isEmpty()).toBe(true);
  });

  it('saves a file the model does not take to /attachments/ (bytes kept), names it, and lists the folder in /', async () => {
    const mounts = createDefaultMounts({ folder: dir, db, execute: false });
    const files = mounts.threadFiles.attachments;
    const content = await withAttachments('hear this', [{ name: 'sound.wav', mimeType: 'audio/wav', data: wav.toString('base64') }], { mediaInput: ['image/*'], files });
    expect(content).toBe(`hear this\n[Attached /attachments/sound.wav (audio/wav, ${(wav.length / 1024).toFixed(1)} KB): read it with read_file]`);
    const raw = await mounts.backend.readRaw('/attachments/sound.wav');
    expect(Buffer.from(raw.data!).equals(wav)).toBe(true);
    expect((await mounts.backend.ls('/')).entries?.map((e) => e.path)).toContain('/attachments/');
  });

  it('a file that is not the image its name and type claim (an executable named shot.png) is saved, never sent as an image', async () => {
    const mounts = createDefaultMounts({ folder: dir, db, execute: false });
    const files = mounts.threadFiles.attachments;
    const elf = Buffer.concat([Buffer.from([0x7f]), Buffer.from('ELF'), Buffer.from([2, 1, 1, 0]), Buffer.alloc(60)]);
    const content = await withAttachments('what is this', [{ name: 'shot.png', mimeType: 'image/png', data: elf.toString('base64') }], { mediaInput: undefined, files });
    expect(content).toBe(`what is this\n[Attached /attachments/shot.png (application/octet-stream, ${elf.length} B): read it with read_file]`);
  });

  it('sanitises names and never overwrites an earlier attachment', async () => {
    const mounts = createDefaultMounts({ folder: dir, db, execute: false });
    const files = mounts.threadFiles.attachments;
    const data = Buffer.from('hello\n').toString('base64');
    await withAttachments('', [{ name: '../../etc/notes.txt', mimeType: 'text/plain', data }], { mediaInput: undefined, files });
    const content = await withAttachments('', [{ name: 'notes.txt', mimeType: '', data }, { name: '..', mimeType: '', data }, { name: 'a\u0007b.txt', mimeType: '', data }], {
      mediaInput: undefined,
      files,
    });
    expect(content).toContain('/attachments/notes (2).txt (application/octet-stream');
    expect((await files.ls('/')).entries?.map((e) => e.path)).toEqual(['/ab.txt', '/attachment', '/notes (2).txt', '/notes.txt']);
    expect(safeAttachmentName('C:\\Users\\me\\x.png')).toBe('x.png');
  });

  it('saves every file of a message that waits in the queue (it is text)', async () => {
    const mounts = createDefaultMounts({ folder: dir, db, execute: false });
    const content = await withAttachments('q', [{ name: 'pic.png', mimeType: 'image/png', data: png.toString('base64') }], { mediaInput: 'save-all', files: mounts.threadFiles.attachments });
    expect(content).toBe(`q\n[Attached /attachments/pic.png (image/png, ${png.length} B): read it with read_file]`);
  });

  it('refuses a file over 10 MB', async () => {
    const mounts = createDefaultMounts({ folder: dir, db, execute: false });
    const big = Buffer.alloc(10 * 1024 * 1024 + 3).toString('base64');
    await expect(withAttachments('x', [{ name: 'big.bin', mimeType: '', data: big }], { mediaInput: undefined, files: mounts.threadFiles.attachments })).rejects.toThrow(
      /big\.bin is 10\.0 MB; an attached file may be at most 10\.0 MB/,
    );
  });
});

describe('attachments in a thread', () => {
  it('survive the thread store and show as the message attachments', async () => {
    const store = new ThreadStore(db);
    const state = newThreadState('t1');
    const threadFiles = threadFilesFrom(state.files);
    const content = await withAttachments('both', [
      { name: 'pic.png', mimeType: 'image/png', data: png.toString('base64') },
      { name: 'sound.wav', mimeType: 'audio/wav', data: wav.toString('base64') },
    ], { mediaInput: ['image/*'], files: threadFiles.attachments });
    state.messages.push({ role: 'user', content });
    state.files = threadFilesSnapshot(threadFiles);
    store.save(state, { folder: dir });
    store.forget('t1');

    const loaded = store.load('t1');
    const reloadedFiles = threadFilesFrom(loaded.files);
    expect(Buffer.from((await reloadedFiles.attachments.readRaw('/sound.wav')).data!).equals(wav)).toBe(true);
    expect(displayItems(loaded)).toEqual([
      {
        kind: 'user',
        text: 'both',
        index: 0,
        attachments: [
          { name: 'sound.wav', mimeType: 'audio/wav', size: `${(wav.length / 1024).toFixed(1)} KB`, path: '/attachments/sound.wav' },
          { name: 'pic.png', mimeType: 'image/png', size: `${png.length} B` },
        ],
      },
    ]);
  });
});
