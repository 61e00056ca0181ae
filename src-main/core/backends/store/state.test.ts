// StateBackend specifics: snapshots, change notifications, implicit folders and binary
// records. Generic behaviour is in conformance/.

import { describe, expect, it } from 'vitest';
import type { StateChange, StateSnapshot } from './state';
import { StateBackend } from './state';

const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x01]);

describe('StateBackend snapshots', () => {
  it('round-trips through JSON with contents, binary data, times and versions', async () => {
    const b = new StateBackend();
    expect(b.isEmpty()).toBe(true);
    await b.write('/large_tool_results/call_1', 'line 1\nline 2\n');
    await b.write('/notes/crlf.md', 'a\r\nb\r\n');
    await b.uploadFiles([{ path: '/img/p.png', content: PNG }]);
    expect(b.isEmpty()).toBe(false);

    const snapshot: StateSnapshot = JSON.parse(JSON.stringify(b));
    expect(Object.keys(snapshot.files)).toEqual(['/img/p.png', '/large_tool_results/call_1', '/notes/crlf.md']);
    expect(snapshot.files['/img/p.png']).toMatchObject({ encoding: 'base64', mimeType: 'image/png' });

    const restored = StateBackend.fromJSON(snapshot);
    expect(restored.toJSON()).toEqual(b.toJSON());
    expect((await restored.read('/large_tool_results/call_1', 1)).fileData?.content).toBe('line 2');
    expect(Array.from((await restored.readRaw('/img/p.png')).data!)).toEqual(Array.from(PNG));
    expect(Buffer.from((await restored.readRaw('/notes/crlf.md')).data!).toString()).toBe('a\r\nb\r\n');
    const read = await restored.read('/img/p.png');
    expect(read.fileData).toMatchObject({ encoding: 'base64', mimeType: 'image/png', content: Buffer.from(PNG).toString('base64') });
    for (const path of ['/large_tool_results/call_1', '/notes/crlf.md', '/img/p.png']) {
      expect((await restored.stat(path)).version).toBe((await b.stat(path)).version);
    }
  });

  it('never reuses a version after a restore, a delete or a re-create', async () => {
    const b = new StateBackend();
    await b.write('/a', 'one');
    await b.write('/b', 'x');
    const seen = new Set([(await b.stat('/a')).version]);
    const restored = StateBackend.fromJSON(b.toJSON());
    await restored.delete('/a');
    await restored.write('/a', 'one');
    seen.add((await restored.stat('/a')).version);
    await restored.edit('/a', 'one', 'two');
    seen.add((await restored.stat('/a')).version);
    expect(seen.size).toBe(3);
  });

  it('gives a snapshot that later mutations do not change', async () => {
    const b = new StateBackend();
    await b.write('/a', 'before');
    const snapshot = b.toJSON();
    await b.edit('/a', 'before', 'after');
    expect(snapshot.files['/a']?.content).toBe('before');
  });

  it('normalises snapshot paths and drops ones it refuses', async () => {
    const b = new StateBackend({
      files: {
        'notes//a.md': { content: 'a', encoding: 'utf-8', createdAt: 'c', modifiedAt: 'm', version: 3 },
        '/../evil': { content: 'x', encoding: 'utf-8', createdAt: 'c', modifiedAt: 'm', version: 4 },
      },
    });
    expect(Object.keys(b.toJSON().files)).toEqual(['/notes/a.md']);
  });
});

describe('StateBackend onChange', () => {
  it('fires after each successful mutation and stops after unsubscribe', async () => {
    const b = new StateBackend();
    const changes: StateChange[] = [];
    const seenContent: string[] = [];
    const off = b.onChange((change) => {
      changes.push(change);
      seenContent.push(b.toJSON().files['/f.md']?.content ?? '<none>');
    });
    await b.write('/f.md', 'one');
    await b.edit('/f.md', 'one', 'two');
    await b.uploadFiles([{ path: '/p.png', content: PNG }]);
    await b.delete('/p.png');
    // Failures and reads change nothing and say nothing.
    await b.edit('/f.md', 'absent', 'x');
    await b.write('/f.md/child', 'x');
    await b.delete('/missing');
    await b.read('/f.md');
    await b.grep('two');
    expect(changes).toEqual([
      { kind: 'write', path: '/f.md' },
      { kind: 'write', path: '/f.md' },
      { kind: 'write', path: '/p.png' },
      { kind: 'delete', path: '/p.png' },
    ]);
    // The listener sees the state after the mutation, ready to persist.
    expect(seenContent).toEqual(['one', 'two', 'two', 'two']);
    off();
    await b.write('/f.md', 'three');
    expect(changes).toHaveLength(4);
  });
});

describe('StateBackend folders and records', () => {
  it('derives folders from file paths', async () => {
    const b = new StateBackend();
    await b.write('/a/b/c.txt', 'x');
    await b.write('/a/d.txt', 'yy');
    const ls = await b.ls('/a');
    expect(ls.entries).toEqual([
      { path: '/a/b/', isDir: true },
      { path: '/a/d.txt', size: 2, modifiedAt: expect.any(String) },
    ]);
    expect((await b.ls('/')).entries?.map((e) => e.path)).toEqual(['/a/']);
    expect((await b.stat('/a/b')).info).toEqual({ path: '/a/b/', isDir: true });
    expect((await b.delete('/a/b')).error).toBe("Folder '/a/b' is not empty");
    await b.delete('/a/b/c.txt');
    expect((await b.ls('/a/b')).error).toBe("Path '/a/b' not found");
    expect((await b.ls('/')).entries?.map((e) => e.path)).toEqual(['/a/']);
    expect((await b.write('/a/d.txt/e', 'x')).error).toBe("'/a/d.txt' is not a directory");
    expect((await b.write('/a', 'x')).error).toBe("'/a' is a directory, not a file");
  });

  it('keeps uploaded text as text and other bytes as base64, which grep skips', async () => {
    const b = new StateBackend();
    await b.uploadFiles([
      { path: '/t.md', content: new TextEncoder().encode('find me\n') },
      { path: '/blob.bin', content: Uint8Array.from([0x66, 0x69, 0x6e, 0x64, 0x00]) },
      { path: '/nul.txt', content: Uint8Array.from([0x66, 0x69, 0x6e, 0x64, 0x00, 0x0a]) },
    ]);
    const snapshot = b.toJSON();
    expect(snapshot.files['/t.md']).toMatchObject({ encoding: 'utf-8', content: 'find me\n' });
    expect(snapshot.files['/blob.bin']).toMatchObject({ encoding: 'base64', mimeType: 'application/octet-stream' });
    expect(snapshot.files['/nul.txt']).toMatchObject({ encoding: 'base64' });
    expect((await b.grep('find')).matches?.map((m) => m.path)).toEqual(['/t.md']);
    expect((await b.edit('/blob.bin', 'f', 'g')).error).toBe("'/blob.bin' is a binary file; it cannot be edited as text");
    expect((await b.ls('/blob.bin')).entries).toEqual([{ path: '/blob.bin', size: 5, modifiedAt: expect.any(String) }]);
  });

  it('keeps createdAt and moves modifiedAt on overwrite', async () => {
    const b = new StateBackend({
      files: { '/a.md': { content: 'x', encoding: 'utf-8', createdAt: '2020-01-01T00:00:00.000Z', modifiedAt: '2020-01-01T00:00:00.000Z', version: 1 } },
    });
    await b.write('/a.md', 'y');
    const file = b.toJSON().files['/a.md'];
    expect(file?.createdAt).toBe('2020-01-01T00:00:00.000Z');
    expect(file?.modifiedAt).not.toBe('2020-01-01T00:00:00.000Z');
  });
});
