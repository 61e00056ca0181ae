// The seccomp filter (seccomp.ts): its tables evaluated instruction by instruction, and the
// real sandbox attacked by effect — no way of making a setuid or setgid file, through the pty
// launcher (`execute`) or the pipe launcher (a long-lived server writing into the folder
// directly), leaves one in the folder; ordinary modes and normal work still work.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalShellBackend } from '../backends/filesystem/local-shell';
import { spawnPipe } from '../process/spawn';
import { createSandbox, detectSandbox } from './index';
import { compileFilter, HOST_ABIS, seccompFilter } from './seccomp';
import type { Sandbox } from './types';

/** Runs a classic-BPF seccomp program on one call, as the kernel would (the instructions it uses). */
function evaluate(program: Buffer, call: { arch: number; nr: number; args?: number[] }): number {
  const data = Buffer.alloc(64);
  data.writeInt32LE(call.nr | 0, 0);
  data.writeUInt32LE(call.arch, 4);
  (call.args ?? []).forEach((v, i) => data.writeUInt32LE(v >>> 0, 16 + 8 * i));
  let acc = 0;
  for (let pc = 0; pc * 8 < program.length; pc++) {
    const code = program.readUInt16LE(pc * 8);
    const jt = program.readUInt8(pc * 8 + 2);
    const jf = program.readUInt8(pc * 8 + 3);
    const k = program.readUInt32LE(pc * 8 + 4);
    if (code === 0x20) acc = data.readUInt32LE(k);
    else if (code === 0x06) return k;
    else if (code === 0x15) pc += acc === k ? jt : jf;
    else if (code === 0x35) pc += acc >= k ? jt : jf;
    else if (code === 0x45) pc += (acc & k) !== 0 ? jt : jf;
    else throw new Error(`unknown instruction ${code}`);
  }
  throw new Error('fell off the end');
}

const ALLOW = 0x7fff0000;
const EPERM = 0x00050001;
const ENOSYS = 0x00050026;
const O_CREAT = 0o100;
const O_TMPFILE = 0o20200000;

describe('the filter, per table', () => {
  const x64 = compileFilter(HOST_ABIS.x64!);
  const arm64 = compileFilter(HOST_ABIS.arm64!);
  const X86_64 = 0xc000003e;
  const I386 = 0x40000003;
  const AARCH64 = 0xc00000b7;
  const ARM = 0x40000028;

  it('refuses set-id modes in chmod, fchmod, fchmodat, fchmodat2, creat, mkdir(at), mknod(at) on x86_64', () => {
    for (const [nr, modeArg] of [[90, 1], [91, 1], [268, 2], [452, 2], [85, 1], [83, 1], [258, 2], [133, 1], [259, 2]] as const) {
      for (const mode of [0o4755, 0o2755, 0o6000, 0o104755]) {
        const args = [0, 0, 0, 0];
        args[modeArg] = mode;
        expect(evaluate(x64, { arch: X86_64, nr, args })).toBe(EPERM);
      }
      const args = [0, 0, 0, 0];
      args[modeArg] = 0o1777;
      expect(evaluate(x64, { arch: X86_64, nr, args })).toBe(ALLOW);
    }
  });

  it('checks open and openat modes only when they create', () => {
    expect(evaluate(x64, { arch: X86_64, nr: 2, args: [0, O_CREAT, 0o4755] })).toBe(EPERM);
    expect(evaluate(x64, { arch: X86_64, nr: 257, args: [0, 0, O_TMPFILE, 0o2700] })).toBe(EPERM);
    expect(evaluate(x64, { arch: X86_64, nr: 257, args: [0, 0, O_CREAT, 0o644] })).toBe(ALLOW);
    expect(evaluate(x64, { arch: X86_64, nr: 257, args: [0, 0, 0, 0o4755] })).toBe(ALLOW);
    expect(evaluate(x64, { arch: X86_64, nr: 2, args: [0, 0, 0xffffffff] })).toBe(ALLOW);
  });

  it('makes openat2 and io_uring_setup absent, refuses x32 whole and other archs', () => {
    expect(evaluate(x64, { arch: X86_64, nr: 437 })).toBe(ENOSYS);
    expect(evaluate(x64, { arch: X86_64, nr: 425 })).toBe(ENOSYS);
    expect(evaluate(x64, { arch: X86_64, nr: 0x40000000 | 90, args: [0, 0o755] })).toBe(ENOSYS);
    expect(evaluate(x64, { arch: X86_64, nr: 0x40000000 | 1 })).toBe(ENOSYS);
    expect(evaluate(x64, { arch: AARCH64, nr: 53, args: [0, 0, 0o4755] })).toBe(EPERM);
    expect(evaluate(x64, { arch: X86_64, nr: 1 })).toBe(ALLOW);
  });

  it('covers the i386 table on x86_64 (int $0x80)', () => {
    expect(evaluate(x64, { arch: I386, nr: 15, args: [0, 0o4755] })).toBe(EPERM);
    expect(evaluate(x64, { arch: I386, nr: 306, args: [0, 0, 0o2755] })).toBe(EPERM);
    expect(evaluate(x64, { arch: I386, nr: 5, args: [0, O_CREAT, 0o4755] })).toBe(EPERM);
    expect(evaluate(x64, { arch: I386, nr: 15, args: [0, 0o755] })).toBe(ALLOW);
    expect(evaluate(x64, { arch: I386, nr: 437 })).toBe(ENOSYS);
  });

  it('covers aarch64 and 32-bit ARM', () => {
    expect(evaluate(arm64, { arch: AARCH64, nr: 52, args: [0, 0o4755] })).toBe(EPERM);
    expect(evaluate(arm64, { arch: AARCH64, nr: 53, args: [0, 0, 0o2755] })).toBe(EPERM);
    expect(evaluate(arm64, { arch: AARCH64, nr: 56, args: [0, 0, O_CREAT, 0o4755] })).toBe(EPERM);
    expect(evaluate(arm64, { arch: AARCH64, nr: 34, args: [0, 0, 0o2755] })).toBe(EPERM);
    expect(evaluate(arm64, { arch: AARCH64, nr: 33, args: [0, 0, 0o104755, 0] })).toBe(EPERM);
    expect(evaluate(arm64, { arch: AARCH64, nr: 53, args: [0, 0, 0o755] })).toBe(ALLOW);
    expect(evaluate(arm64, { arch: AARCH64, nr: 437 })).toBe(ENOSYS);
    expect(evaluate(arm64, { arch: ARM, nr: 15, args: [0, 0o4755] })).toBe(EPERM);
    expect(evaluate(arm64, { arch: ARM, nr: 333, args: [0, 0, 0o4755] })).toBe(EPERM);
    expect(evaluate(arm64, { arch: ARM, nr: 15, args: [0, 0o644] })).toBe(ALLOW);
    expect(evaluate(arm64, { arch: X86_64, nr: 90, args: [0, 0o755] })).toBe(EPERM);
  });

  it('has no filter on a host without a table', () => {
    expect(seccompFilter('riscv64')).toBeUndefined();
  });

  it('keeps the compiled filter in a private folder, readable by the owner only', () => {
    const filter = seccompFilter();
    if (!filter) return;
    expect(lstatSync(filter.dir).mode & 0o777).toBe(0o700);
    expect(lstatSync(filter.file).mode & 0o777).toBe(0o600);
  });
});

const available = await detectSandbox();

/** Files and folders under `dir` (itself included) that carry S_ISUID or S_ISGID. */
function setIdEntries(dir: string): string[] {
  const found: string[] = [];
  const visit = (path: string): void => {
    const st = lstatSync(path);
    if (!st.isSymbolicLink() && (st.mode & 0o6000) !== 0) found.push(`${path} ${(st.mode & 0o7777).toString(8)}`);
    if (st.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(dir);
  return found;
}

function hasTool(name: string): boolean {
  try {
    execFileSync('/bin/sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(!available.available)('no set-id file is made in the sandbox (bubblewrap, for real)', () => {
  let root: string;
  let home: string;
  let project: string;
  let outside: string;
  let sandbox: Sandbox;
  let backend: LocalShellBackend;

  beforeEach(async () => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-seccomp-test-')));
    home = join(root, 'home');
    project = join(root, 'project');
    outside = join(root, 'outside');
    for (const dir of [home, project, outside, join(root, 'data')]) mkdirSync(dir, { recursive: true });
    writeFileSync(join(project, 'README.md'), 'hello\n');
    const made = await createSandbox({ projectDir: project, dataDir: join(root, 'data') });
    if (!made) throw new Error('no sandbox');
    sandbox = made;
    backend = new LocalShellBackend({ rootDir: project, env: { HOME: home }, sandbox });
  });

  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  /** A program that calls chmod("via-int80", 04755) through the i386 table, where gcc can build one. */
  function int80Chmod(): string | undefined {
    if (process.arch !== 'x64' || !hasTool('gcc')) return undefined;
    const source = join(outside, 'int80.c');
    writeFileSync(
      source,
      'static const char path[] = "via-int80";\n' +
        'int main(void) { long r; __asm__ volatile("int $0x80" : "=a"(r) : "a"(15L), "b"((long)path), "c"(04755L) : "memory"); return r == 0 ? 0 : 1; }\n',
    );
    const binary = join(outside, 'int80');
    try {
      execFileSync('gcc', ['-O', '-no-pie', '-o', binary, source], { stdio: 'ignore' });
      return binary;
    } catch {
      return undefined;
    }
  }

  function attackScript(): string {
    const python = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : undefined;
    const int80 = int80Chmod();
    const lines = [
      'touch a b e fch inst-src via-int80 x32; mkdir d',
      'chmod u+s a; chmod 2755 b; chmod g+s d; chmod 6777 e',
      'install -m 4755 inst-src installed; install -d -m 2755 install-dir',
      `perl -MFcntl -e 'sysopen(my $f, "perl-open", O_CREAT|O_WRONLY, 04755); mkdir("perl-dir", 02755); open(my $h, ">>", "fch"); chmod(04755, $h); syscall(0x4000005a, "x32", 04755)'`,
    ];
    if (process.arch === 'x64') lines.push(`perl -e 'syscall(133, "perl-mknod", 0104755, 0); syscall(268, -100, "a", 04755); syscall(452, -100, "b", 02755, 0)'`);
    if (python) {
      lines.push(
        `${python} -c 'import os; os.close(os.open("py-open", os.O_CREAT | os.O_WRONLY, 0o4755)); os.mkdir("py-dir", 0o2755); os.chmod("e", 0o6755); fd = os.open("fch", os.O_RDONLY); os.fchmod(fd, 0o2755)'`,
      );
    }
    if (int80) lines.push(`${int80}`);
    return lines.map((l) => `${l}; true`).join('\n');
  }

  it('through execute (the pty launcher): chmod, install, perl, python, fchmod, x32 and int $0x80 leave no set-id bit', async () => {
    const result = await backend.execute(attackScript(), { timeoutS: 60 });
    expect(result.sandboxed).toBe(true);
    expect(existsSync(join(project, 'a'))).toBe(true);
    expect(setIdEntries(project)).toEqual([]);
  });

  it('in a long-lived server (the pipe launcher, writing into the folder directly): no set-id bit', async () => {
    const prepared = await sandbox.prepare({ file: '/bin/sh', args: ['-c', attackScript()], cwd: project, env: { HOME: home, PATH: process.env.PATH ?? '/usr/bin:/bin' } }, { longLived: true });
    try {
      const child = spawnPipe({ role: 'server', file: prepared.file, args: prepared.args, cwd: prepared.cwd, env: prepared.env, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
      expect({ code, stderr: stderr.includes('bwrap:') ? stderr : '' }).toEqual({ code: 0, stderr: '' });
      expect(existsSync(join(project, 'a'))).toBe(true);
      expect(setIdEntries(project)).toEqual([]);
    } finally {
      await prepared.dispose();
    }
  });

  it('is installed, and neither its file nor its descriptor reaches the command', async () => {
    const filter = seccompFilter();
    if (!filter) return;
    const result = await backend.execute(`grep '^Seccomp:' /proc/self/status; [ -e /proc/self/fd/${filter.fd} ] && echo fd-open; od -An -tx1 ${filter.file} | head -c 40; ls ${filter.dir} | wc -l`);
    expect(result.output.split('\n')).toEqual(expect.arrayContaining(['Seccomp:\t2', '0']));
    expect(result.output).not.toContain('fd-open');
    expect(result.output).not.toMatch(/ 20 00 00 00/);
  });

  it('keeps ordinary modes, npm-style files, git, and tar (a setuid member lands without the bit)', async () => {
    const staging = join(outside, 'staging');
    mkdirSync(staging);
    writeFileSync(join(staging, 'tool'), 'payload\n');
    chmodSync(join(staging, 'tool'), 0o4755);
    execFileSync('tar', ['cf', join(outside, 'archive.tar'), '-C', staging, 'tool']);
    const result = await backend.execute(
      [
        'touch x y z && chmod +x x && chmod 644 y && chmod 755 z',
        'mkdir -p node_modules/pkg/bin && printf "#!/bin/sh\\necho hi\\n" > node_modules/pkg/bin/cli && chmod 755 node_modules/pkg/bin/cli && node_modules/pkg/bin/cli',
        'git init -q && git add -A && git -c user.name=A -c user.email=a@x commit -qm first && git log --format=%s',
        `tar xf ${join(outside, 'archive.tar')} 2>/dev/null; cat tool`,
      ].join(' && '),
      { timeoutS: 60 },
    );
    expect(result.output).toBe('hi\nfirst\npayload');
    expect(result.exitCode).toBe(0);
    expect(lstatSync(join(project, 'x')).mode & 0o111).not.toBe(0);
    expect(lstatSync(join(project, 'y')).mode & 0o777).toBe(0o644);
    expect(lstatSync(join(project, 'z')).mode & 0o777).toBe(0o755);
    expect(lstatSync(join(project, 'node_modules/pkg/bin/cli')).mode & 0o777).toBe(0o755);
    expect(readFileSync(join(project, 'tool'), 'utf8')).toBe('payload\n');
    expect(execFileSync('git', ['log', '--format=%s'], { cwd: project, encoding: 'utf8', env: { ...process.env, HOME: home } }).trim()).toBe('first');
    expect(setIdEntries(project)).toEqual([]);
  });
});
