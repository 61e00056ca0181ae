// ProviderBackend's own promises (SPEC §18): file contents never ride on a command line (a
// file far larger than a command may be round-trips), hostile file names stay data, and an
// operation costs the round trips provider-backend.ts says.

import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ProviderSandbox, SandboxExecOptions } from '../../sandbox-providers/provider';
import { LocalBoxProvider } from '../../sandbox-providers/testing/local-box-provider';
import { withTargetGuard } from '../target-guard';
import { INLINE_READ_BYTES, inlineBytes } from '../script/script-backend';
import { ProviderBackend } from './provider-backend';

const provider = new LocalBoxProvider();
afterAll(() => provider.dispose());

let sandbox: ProviderSandbox;
let backend: ProviderBackend;
/** The longest command the backend sent. */
let longest = 0;

beforeEach(async () => {
  sandbox = await provider.create({ labels: {} });
  const watched: ProviderSandbox = {
    ...sandbox,
    id: sandbox.id,
    provider: sandbox.provider,
    workdir: sandbox.workdir,
    execute: (command: string, options: SandboxExecOptions) => {
      longest = Math.max(longest, Buffer.byteLength(command));
      return sandbox.execute(command, options);
    },
  };
  backend = new ProviderBackend(watched);
  longest = 0;
});
afterEach(() => provider.remove(sandbox.id));

/** Calls made by `run`, by kind. */
async function counted<T>(run: () => Promise<T>): Promise<{ result: T; execute: number; upload: number; download: number }> {
  const before = { ...provider.calls };
  const result = await run();
  return { result, execute: provider.calls.execute - before.execute, upload: provider.calls.upload - before.upload, download: provider.calls.download - before.download };
}

describe('ProviderBackend', () => {
  it('writes and reads a 12 MB file without its contents on a command line', async () => {
    const lines = Array.from({ length: 200_000 }, (_, i) => `line ${i + 1} ${'x'.repeat(50)}`);
    const text = lines.join('\n') + '\n';
    expect(Buffer.byteLength(text)).toBeGreaterThan(10 * 1024 * 1024);
    const write = await counted(() => backend.write('/big.txt', text));
    expect(write.result).toEqual({ path: '/big.txt' });
    expect(write).toMatchObject({ execute: 1, upload: 1, download: 0 });

    const head = await backend.read('/big.txt', 0, 3);
    expect(head.fileData?.content).toBe(lines.slice(0, 3).join('\n'));
    expect(head).toMatchObject({ startLine: 1, endLine: 3, totalLines: 200_000, nextOffset: 3 });
    const tail = await backend.read('/big.txt', 199_998, 10);
    expect(tail.fileData?.content).toBe(lines.slice(199_998).join('\n'));
    expect(tail).toMatchObject({ startLine: 199_999, endLine: 200_000, totalLines: 200_000 });
    expect(tail.nextOffset).toBeUndefined();

    const raw = await backend.readRaw('/big.txt');
    expect(Buffer.from(raw.data ?? new Uint8Array()).equals(Buffer.from(text))).toBe(true);
    const [down] = await backend.downloadFiles(['/big.txt']);
    expect(down?.content?.length).toBe(Buffer.byteLength(text));
    // Far below a file's size and below Linux's 128 KiB limit for one argument.
    expect(longest).toBeLessThan(16 * 1024);
  });

  it('keeps a file name with spaces, quotes, $() and a leading - as data', async () => {
    const name = `-n $(cd;touch pwned) 'q' "d" \`cd;touch pwned2\`.txt`;
    const path = `/dir -x/${name}`;
    expect(await backend.write(path, 'needle one\n')).toEqual({ path });
    expect((await backend.read(path)).fileData?.content).toBe('needle one');
    expect(await backend.edit(path, 'one', 'two')).toEqual({ path, occurrences: 1 });
    expect((await backend.ls('/dir -x')).entries?.map((e) => e.path)).toEqual([path]);
    expect((await backend.grep('needle', '/')).matches).toEqual([{ path, line: 1, text: 'needle two' }]);
    expect((await backend.glob('*.txt')).matches?.map((m) => m.path)).toEqual([path]);
    expect((await backend.stat(path)).info?.path).toBe(path);
    expect(await backend.uploadFiles([{ path, content: Buffer.from('bytes') }])).toEqual([{ path }]);
    expect(Buffer.from((await backend.readRaw(path)).data ?? []).toString()).toBe('bytes');
    expect(await backend.delete(path)).toEqual({ path });
    const home = await sandbox.execute('ls -A "$HOME"; ls -A /tmp', { timeoutMs: 10_000 });
    expect(home.output).not.toContain('pwned');
    expect((await backend.ls('/')).entries?.map((e) => e.path)).toEqual(['/dir -x/']);
  });

  it('refuses a path that leads outside the workdir through a symlink, as the disk backend words it', async () => {
    await sandbox.execute('mkdir -p /tmp/outside && echo secret > /tmp/outside/s.txt && ln -s /tmp/outside out', { timeoutMs: 10_000 });
    const outside = "Path '/out/s.txt' is outside the project folder";
    expect((await backend.read('/out/s.txt')).error).toBe(outside);
    expect((await backend.readRaw('/out/s.txt')).error).toBe(outside);
    expect((await backend.write('/out/s.txt', 'x')).error).toBe(outside);
    expect((await backend.write('/out/new.txt', 'x')).error).toBe("Path '/out/new.txt' is outside the project folder");
    expect((await backend.edit('/out/s.txt', 'secret', 'x')).error).toBe(outside);
    expect((await backend.downloadFiles(['/out/s.txt']))[0]?.error).toBe('invalid_path');
    expect((await backend.uploadFiles([{ path: '/out/s.txt', content: Buffer.from('x') }]))[0]?.error).toBe('invalid_path');
    const still = await sandbox.execute('cat /tmp/outside/s.txt; ls /tmp/outside', { timeoutMs: 10_000 });
    expect(still.output).toBe('secret\ns.txt\n');
  });

  it('reads a path read before as its script finds it now: new content, a link out refused, a binary file as base64, a large file by its window', async () => {
    const run = async (command: string): Promise<void> => expect((await sandbox.execute(command, { timeoutMs: 30_000 })).exitCode).toBe(0);
    await backend.write('/f', 'one\n');
    expect((await backend.read('/f')).fileData?.content).toBe('one');
    // Replaced between calls, with the same size and with another.
    await run('printf "two\\n" > f');
    expect((await backend.read('/f')).fileData?.content).toBe('two');
    await run('printf "three and more\\n" > f.new && mv f.new f');
    expect((await backend.read('/f')).fileData?.content).toBe('three and more');
    // A link out of the workdir in its place: refused by the same call that would have printed it.
    await run('mkdir -p /tmp/outside && printf "outside secret\\n" > /tmp/outside/s.txt && rm f && ln -s /tmp/outside/s.txt f');
    const refused = await counted(() => backend.read('/f'));
    expect(refused.result).toEqual({ error: "Path '/f' is outside the project folder" });
    expect(refused).toMatchObject({ execute: 1, download: 0 });
    // A file over INLINE_READ_BYTES read before, then a link out to a file of the very size last
    // read: the download made while the script checked is thrown away, and the read refused.
    const big = 'b'.repeat(INLINE_READ_BYTES + 10) + '\n';
    await run(`rm f && head -c ${big.length - 1} /dev/zero | tr "\\0" b > f && echo >> f`);
    expect((await backend.read('/f')).fileData?.content).toBe(big.slice(0, -1));
    await run(`head -c ${big.length} /dev/zero | tr "\\0" s > /tmp/outside/big.txt && rm f && ln -s /tmp/outside/big.txt f`);
    const refusedBig = await counted(() => backend.read('/f'));
    expect(refusedBig.result).toEqual({ error: "Path '/f' is outside the project folder" });
    expect(refusedBig).toMatchObject({ execute: 1, download: 1 });
    expect((await backend.read('/f')).error).toBe("Path '/f' is outside the project folder");
    // A file again, then binary bytes: base64 file data, as the script's check and the sniff say.
    await run('rm f && printf "text\\n" > f');
    expect((await backend.read('/f')).fileData?.content).toBe('text');
    await run('printf "\\000\\001\\002\\003\\004" > f');
    expect((await backend.read('/f')).fileData).toMatchObject({ content: Buffer.from([0, 1, 2, 3, 4]).toString('base64'), encoding: 'base64' });
    // Bytes a provider's text output cannot carry (not UTF-8), and a U+FFFD of the file's own: the
    // printed copy is not trusted, the file is downloaded, and its bytes come back exactly.
    await run('printf "\\377\\376\\000binary\\200" > f');
    const notUtf8 = await counted(() => backend.read('/f'));
    expect(notUtf8.result.fileData).toMatchObject({ content: Buffer.from([0xff, 0xfe, 0, ...Buffer.from('binary'), 0x80]).toString('base64'), encoding: 'base64' });
    expect(notUtf8).toMatchObject({ execute: 1, download: 1 });
    await run('printf "caf\\303\\251 \\357\\277\\275 ok\\n" > f');
    expect((await backend.read('/f')).fileData?.content).toBe('café \uFFFD ok');
    // Grown past what is downloaded whole: its window, cut at the place.
    await run('printf "small\\n" > f');
    expect((await backend.read('/f')).fileData?.content).toBe('small');
    await run('yes "a line of the large file" | head -n 500000 > f');
    const large = await counted(() => backend.read('/f', 499_998, 5));
    expect(large.result).toMatchObject({ fileData: { content: 'a line of the large file\na line of the large file', encoding: 'utf-8' }, startLine: 499_999, endLine: 500_000, totalLines: 500_000 });
    // The speculative download of the small file's path came back larger than the script's size: not used.
    expect(large.download).toBeLessThanOrEqual(2);
    // A folder there now: the script's answer.
    await run('rm f && mkdir f');
    expect((await backend.read('/f')).error).toBe((await backend.read('/f/')).error);
    expect((await backend.read('/f')).error).toMatch(/director/i);
  });

  it('prints no more of a file than its size says, and reads a file over the printed size by download', async () => {
    const outputs: number[] = [];
    const watched = new ProviderBackend({
      ...sandbox,
      id: sandbox.id,
      provider: sandbox.provider,
      workdir: sandbox.workdir,
      execute: async (command: string, options: SandboxExecOptions) => {
        const r = await sandbox.execute(command, options);
        outputs.push(Buffer.byteLength(r.output));
        return r;
      },
    });
    // Over the printed size: the script answers with the path only, and the bytes come by download.
    const text = 'x'.repeat(INLINE_READ_BYTES) + '\n';
    expect((await sandbox.execute(`head -c ${INLINE_READ_BYTES} /dev/zero | tr "\\0" x > over && echo >> over`, { timeoutMs: 30_000 })).exitCode).toBe(0);
    const over = await counted(() => watched.read('/over'));
    expect(over.result.fileData?.content).toBe(text.slice(0, -1));
    expect(over).toMatchObject({ execute: 1, download: 1 });
    expect(Math.max(...outputs)).toBeLessThan(4096);
    // A device that never ends, through a link and in the folder: refused, and nothing is printed.
    outputs.length = 0;
    expect((await sandbox.execute('ln -s /dev/zero zero && mkfifo fifo', { timeoutMs: 30_000 })).exitCode).toBe(0);
    expect((await watched.read('/zero')).error).toBe("Path '/zero' is outside the project folder");
    expect((await watched.read('/fifo')).error).toBe("'/fifo' is not a regular file");
    expect(Math.max(...outputs)).toBeLessThan(4096);
  });

  it('keeps printed bytes only when they are exactly the file’s', () => {
    const payload = (real: string, bytes: Buffer): Buffer => Buffer.concat([Buffer.from(real), Buffer.from([0]), bytes]);
    expect(inlineBytes(payload('/w/a.txt', Buffer.from('one\n')), 4)).toEqual({ real: '/w/a.txt', data: Buffer.from('one\n') });
    // Fewer or more bytes than stat said (the file changed meanwhile), or a replacement character: downloaded instead.
    expect(inlineBytes(payload('/w/a.txt', Buffer.from('one')), 4)?.data).toBeNull();
    expect(inlineBytes(payload('/w/a.txt', Buffer.from('one\n\n')), 4)?.data).toBeNull();
    expect(inlineBytes(payload('/w/a.txt', Buffer.from('\uFFFD')), 3)?.data).toBeNull();
    // A malformed answer is refused whole.
    expect(inlineBytes(Buffer.from('/w/a.txt'), 0)).toBeNull();
    expect(inlineBytes(payload('w/a.txt', Buffer.from('x')), 1)).toBeNull();
    expect(inlineBytes(payload('', Buffer.from('x')), 1)).toBeNull();
  });

  it('costs one call per operation where it can, a batch included', async () => {
    await backend.write('/a.txt', 'one\n');
    expect(await counted(() => backend.ls('/'))).toMatchObject({ execute: 1, upload: 0, download: 0 });
    expect(await counted(() => backend.read('/a.txt'))).toMatchObject({ execute: 1, download: 0 });
    expect(await counted(() => backend.edit('/a.txt', 'one', 'two'))).toMatchObject({ execute: 1, upload: 1, download: 1 });
    expect(await counted(() => backend.glob('*.txt'))).toMatchObject({ execute: 1 });
    expect(await counted(() => backend.grep('two'))).toMatchObject({ execute: 2 });
    const files = Array.from({ length: 20 }, (_, i) => ({ path: `/batch/f${i}.bin`, content: Buffer.from(`file ${i}`) }));
    expect(await counted(() => backend.uploadFiles(files))).toMatchObject({ execute: 1, upload: 1 });
    expect(await counted(() => backend.downloadFiles(files.map((f) => f.path)))).toMatchObject({ execute: 1, download: 1 });
  });

  it('runs commands in the workdir with the local shell result conventions', async () => {
    expect(backend.id).toBe(`daytona:${sandbox.id}`);
    const ok = await backend.execute('pwd; echo "$CI"; echo err >&2');
    expect(ok).toEqual({ output: `${sandbox.workdir}\n1\nerr`, exitCode: 0, truncated: false });
    expect((await backend.execute('exit 3')).exitCode).toBe(3);
    const slow = await backend.execute('echo start; sleep 30', { timeoutS: 1 });
    expect(slow).toMatchObject({ exitCode: 124, timedOut: true, output: 'start\n[Command timed out after 1 second and was killed]' });
    const big = await backend.execute('head -c 300000 /dev/zero | tr "\\0" a');
    expect(big.truncated).toBe(true);
    expect(big.output).toContain('bytes of output truncated');
  });

  it('asks the tool call’s target guard when a path reaches another file through a link, as an SSH folder’s does, and changes nothing it refused', async () => {
    expect((await backend.execute('mkdir real && echo inside > real/target.txt && ln -s real/target.txt alias.txt')).exitCode).toBe(0);
    const asked: string[] = [];
    const guard = { check: (op: string, named: string, resolved: string) => (asked.push(`${op} ${named} ${resolved}`), 'refused by the guard') };
    expect(await withTargetGuard(guard, () => backend.write('/alias.txt', 'changed\n'))).toEqual({ error: 'refused by the guard' });
    expect(await withTargetGuard(guard, () => backend.edit('/alias.txt', 'inside', 'changed'))).toEqual({ error: 'refused by the guard' });
    expect(await withTargetGuard(guard, () => backend.uploadFiles([{ path: '/alias.txt', content: Buffer.from('changed\n') }]))).toEqual([{ path: '/alias.txt', error: 'invalid_path' }]);
    expect(asked).toEqual(['write /alias.txt /real/target.txt', 'edit /alias.txt /real/target.txt', 'write /alias.txt /real/target.txt']);
    expect((await backend.execute('cat real/target.txt')).output).toBe('inside');
    // A path that names its own file, and a new one, pass without asking.
    expect(await withTargetGuard(guard, () => backend.write('/real/target.txt', 'mine\n'))).toEqual({ path: '/real/target.txt' });
    expect(await withTargetGuard(guard, () => backend.write('/new/dir/file.txt', 'new\n'))).toEqual({ path: '/new/dir/file.txt' });
    expect(asked).toHaveLength(3);
    expect(await backend.alwaysAskReason('/.git/config')).toBe('it is inside a git folder');
  });

  it('gives a provider failure as an error, never a throw', async () => {
    await provider.remove(sandbox.id);
    const gone = `the sandbox ${sandbox.id} is gone`;
    expect((await backend.read('/a.txt')).error).toBe(gone);
    expect((await backend.write('/a.txt', 'x')).error).toBe(gone);
    expect((await backend.grep('x')).error).toBe(gone);
    expect(await backend.execute('echo hi')).toMatchObject({ output: `Error: ${gone}` });
    expect((await backend.downloadFiles(['/a.txt']))[0]?.error).toBe('permission_denied');
    sandbox = await provider.create({ labels: {} });
  });
});
