// The seccomp filter bwrap installs in every local sandboxed process (SPEC §7 "no setuid,
// setgid or device files"): a long-lived server writes into the folder directly, so a set-id
// bit must never be made at all rather than be found afterwards. The filter refuses (EPERM)
// every call that sets a mode with S_ISUID or S_ISGID — chmod and its relatives, and the
// calls that create a file with a mode — and makes the calls it cannot inspect look absent
// (ENOSYS): openat2 (its mode is behind a pointer; libc then falls back to openat) and
// io_uring_setup (a ring's operations never pass through seccomp). Everything else is allowed.
//
// Every ABI a process on the host can enter the kernel through is covered, because the arch
// in seccomp_data says which table a call's number is from: on x86_64 the i386 table (any
// 64-bit process can `int $0x80`; 32-bit programs keep working) and x32 (numbers with
// 0x40000000 set: refused whole, as ENOSYS); on aarch64 the 32-bit ARM table. A call under
// any other arch is refused. On other hosts (not x64 or arm64) there is no filter.
import { existsSync } from 'node:fs';
import { endianness } from 'node:os';
import { dirname } from 'node:path';
import { launcherFile } from './launcher-files';
import { statusReportLines, type StatusReport } from '../process/status-report';

/** A compiled filter on disk, and the descriptor bwrap reads it from (`--seccomp FD`). */
export interface SeccompFilter {
  /** The private folder holding the filter (and the other launch files): hidden from the sandbox. */
  dir: string;
  file: string;
  fd: number;
}

/** One ABI's calls, by number: those whose mode argument is checked, and those refused as absent. */
export interface AbiTable {
  /** AUDIT_ARCH_* as seccomp_data.arch reports it. */
  arch: number;
  /** Per call: the index of its mode argument, and of its open flags where the mode only counts with O_CREAT/O_TMPFILE. */
  modeCalls: Record<string, { nr: number; mode: number; flags?: number }>;
  absent: Record<string, number>;
  /** x32: numbers with this bit are another ABI under the same arch, refused whole. */
  refusedNrBit?: number;
}

const X86_64: AbiTable = {
  arch: 0xc000003e,
  modeCalls: {
    open: { nr: 2, mode: 2, flags: 1 },
    creat: { nr: 85, mode: 1 },
    mkdir: { nr: 83, mode: 1 },
    chmod: { nr: 90, mode: 1 },
    fchmod: { nr: 91, mode: 1 },
    mknod: { nr: 133, mode: 1 },
    openat: { nr: 257, mode: 3, flags: 2 },
    mkdirat: { nr: 258, mode: 2 },
    mknodat: { nr: 259, mode: 2 },
    fchmodat: { nr: 268, mode: 2 },
    fchmodat2: { nr: 452, mode: 2 },
  },
  absent: { io_uring_setup: 425, openat2: 437 },
  refusedNrBit: 0x40000000,
};

const I386: AbiTable = {
  arch: 0x40000003,
  modeCalls: {
    open: { nr: 5, mode: 2, flags: 1 },
    creat: { nr: 8, mode: 1 },
    mknod: { nr: 14, mode: 1 },
    chmod: { nr: 15, mode: 1 },
    mkdir: { nr: 39, mode: 1 },
    fchmod: { nr: 94, mode: 1 },
    openat: { nr: 295, mode: 3, flags: 2 },
    mkdirat: { nr: 296, mode: 2 },
    mknodat: { nr: 297, mode: 2 },
    fchmodat: { nr: 306, mode: 2 },
    fchmodat2: { nr: 452, mode: 2 },
  },
  absent: { io_uring_setup: 425, openat2: 437 },
};

/** The generic table: no open, creat, mkdir, chmod or mknod. */
const AARCH64: AbiTable = {
  arch: 0xc00000b7,
  modeCalls: {
    mknodat: { nr: 33, mode: 2 },
    mkdirat: { nr: 34, mode: 2 },
    fchmod: { nr: 52, mode: 1 },
    fchmodat: { nr: 53, mode: 2 },
    openat: { nr: 56, mode: 3, flags: 2 },
    fchmodat2: { nr: 452, mode: 2 },
  },
  absent: { io_uring_setup: 425, openat2: 437 },
};

/** 32-bit ARM (EABI), which an aarch64 kernel may run. */
const ARM: AbiTable = {
  arch: 0x40000028,
  modeCalls: {
    open: { nr: 5, mode: 2, flags: 1 },
    creat: { nr: 8, mode: 1 },
    mknod: { nr: 14, mode: 1 },
    chmod: { nr: 15, mode: 1 },
    mkdir: { nr: 39, mode: 1 },
    fchmod: { nr: 94, mode: 1 },
    openat: { nr: 322, mode: 3, flags: 2 },
    mkdirat: { nr: 323, mode: 2 },
    mknodat: { nr: 324, mode: 2 },
    fchmodat: { nr: 333, mode: 2 },
    fchmodat2: { nr: 452, mode: 2 },
  },
  absent: { io_uring_setup: 425, openat2: 437 },
};

/** The ABIs of a host, by Node's process.arch; undefined where no filter is made. */
export const HOST_ABIS: Readonly<Record<string, readonly AbiTable[]>> = { x64: [X86_64, I386], arm64: [AARCH64, ARM] };

const S_ISUID_ISGID = 0o6000;
/** O_CREAT | __O_TMPFILE: the same on every ABI above. */
const O_CREAT_OR_TMPFILE = 0o100 | 0o20000000;
const EPERM = 1;
const ENOSYS = 38;

// Classic BPF, as <linux/filter.h> and <linux/seccomp.h> define it.
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const JSET_K = 0x45;
const RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
/** seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6] (the low word first: little-endian hosts only). */
const NR_OFFSET = 0;
const ARCH_OFFSET = 4;
const argLow = (i: number): number => 16 + 8 * i;

type Target = number | string;
interface Insn {
  code: number;
  jt: Target;
  jf: Target;
  k: number;
}

/** Instructions with jumps to named labels, resolved to the relative offsets BPF wants. */
class Assembler {
  private readonly insns: Insn[] = [];
  private readonly labels = new Map<string, number>();

  label(name: string): void {
    this.labels.set(name, this.insns.length);
  }

  load(offset: number): void {
    this.insns.push({ code: LD_W_ABS, jt: 0, jf: 0, k: offset });
  }

  jump(code: number, k: number, jt: Target, jf: Target): void {
    this.insns.push({ code, jt, jf, k });
  }

  ret(k: number): void {
    this.insns.push({ code: RET_K, jt: 0, jf: 0, k });
  }

  bytes(): Buffer {
    const out = Buffer.alloc(this.insns.length * 8);
    const little = endianness() === 'LE';
    this.insns.forEach((insn, i) => {
      const offset = (t: Target): number => {
        const to = typeof t === 'number' ? i + 1 + t : this.labels.get(t);
        if (to === undefined) throw new Error(`seccomp: no label ${String(t)}`);
        const rel = to - (i + 1);
        if (rel < 0 || rel > 255) throw new Error(`seccomp: jump out of range at ${i}`);
        return rel;
      };
      const at = i * 8;
      if (little) out.writeUInt16LE(insn.code, at);
      else out.writeUInt16BE(insn.code, at);
      out.writeUInt8(offset(insn.jt), at + 2);
      out.writeUInt8(offset(insn.jf), at + 3);
      if (little) out.writeUInt32LE(insn.k >>> 0, at + 4);
      else out.writeUInt32BE(insn.k >>> 0, at + 4);
    });
    return out;
  }
}

/** The compiled program (an array of struct sock_filter) for these ABIs. */
export function compileFilter(abis: readonly AbiTable[]): Buffer {
  const a = new Assembler();
  a.load(ARCH_OFFSET);
  abis.forEach((abi, n) => a.jump(JEQ_K, abi.arch, `abi${n}`, n + 1 < abis.length ? 0 : 'eperm'));
  abis.forEach((abi, n) => {
    a.label(`abi${n}`);
    a.load(NR_OFFSET);
    if (abi.refusedNrBit !== undefined) a.jump(JGE_K, abi.refusedNrBit, 'enosys', 0);
    for (const nr of Object.values(abi.absent)) a.jump(JEQ_K, nr, 'enosys', 0);
    const calls = Object.entries(abi.modeCalls);
    for (const [name, call] of calls) a.jump(JEQ_K, call.nr, `abi${n}.${name}`, 0);
    a.ret(RET_ALLOW);
    for (const [name, call] of calls) {
      a.label(`abi${n}.${name}`);
      if (call.flags !== undefined) {
        // Without O_CREAT or O_TMPFILE the mode argument is ignored, and may hold anything.
        a.load(argLow(call.flags));
        a.jump(JSET_K, O_CREAT_OR_TMPFILE, 0, 'allow');
      }
      a.load(argLow(call.mode));
      a.jump(JSET_K, S_ISUID_ISGID, 'eperm', 'allow');
    }
  });
  a.label('allow');
  a.ret(RET_ALLOW);
  a.label('eperm');
  a.ret(RET_ERRNO | EPERM);
  a.label('enosys');
  a.ret(RET_ERRNO | ENOSYS);
  return a.bytes();
}

/** The descriptor the launcher opens the filter on for bwrap (one digit: any POSIX sh can redirect it). */
const FILTER_FD = 9;

let made: SeccompFilter | undefined;

/**
 * This host's filter, in the launch files' folder (launcher-files.ts: one per user, 0700, the
 * file 0600 and named by its bytes); undefined on a host with no table (see HOST_ABIS), or a
 * big-endian one (the argument offsets assume the low word first).
 */
export function seccompFilter(arch: string = process.arch): SeccompFilter | undefined {
  const abis = HOST_ABIS[arch];
  if (!abis || endianness() !== 'LE') return undefined;
  if (made && existsSync(made.file)) return made;
  const file = launcherFile('filter.bpf', compileFilter(abis), 0o600);
  made = { dir: dirname(file), file, fd: FILTER_FD };
  return made;
}

/** bwrap's own arguments for the filter: read from `fd`, which withFilterOpen opens. */
export function seccompArgs(filter: SeccompFilter): string[] {
  return ['--seccomp', String(filter.fd)];
}

/**
 * What the launching shell does before it execs the launcher (bwrap): set the process limit
 * and open the seccomp filter on its descriptor. One shell does both (and the write layer's
 * mount, write-layer.ts), so a command starts through as few execs as possible: node-pty
 * passes no extra descriptors, and the limit binds every process of the run.
 */
export interface LaunchPrelude {
  /** RLIMIT_NPROC for the run (`-u` in bash/zsh/busybox, `-p` in dash). */
  maxProcesses: number;
  filter?: SeccompFilter;
  /** The command's status report (process/status-report.ts): this shell makes it, instead of exec'ing. */
  report?: StatusReport;
}

/**
 * Shell lines: the limit, then `exec "$@"` with the filter (its path in `$f`) open on its
 * descriptor; with a report, `"$@"` run as a child and its status reported.
 */
export function preludeLines(prelude: LaunchPrelude): string[] {
  const n = prelude.maxProcesses;
  const filter = prelude.filter ? `${prelude.filter.fd}<"$f"` : '';
  const run = prelude.report ? statusReportLines(prelude.report, filter) : [filter ? `exec "$@" ${filter}` : 'exec "$@"'];
  return [`ulimit -u ${n} 2>/dev/null || ulimit -p ${n} 2>/dev/null`, ...run];
}

/** Starts `file args` (bwrap) after the prelude, through one POSIX shell. */
export function withPrelude(prelude: LaunchPrelude, file: string, args: readonly string[]): { file: string; args: string[] } {
  return { file: '/bin/sh', args: ['-c', ['f=$1', 'shift', ...preludeLines(prelude)].join('\n'), 'sh', prelude.filter?.file ?? '', file, ...args] };
}

/** Starts `file args` (bwrap) with the filter open on its descriptor (the probe: no limit of its own). */
export function withFilterOpen(filter: SeccompFilter, file: string, args: readonly string[]): { file: string; args: string[] } {
  return { file: '/bin/sh', args: ['-c', `f=$1; shift; exec "$@" ${filter.fd}<"$f"`, 'sh', filter.file, file, ...args] };
}
