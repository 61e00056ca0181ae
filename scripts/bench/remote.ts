// Issue 21: the per-call cost of a folder over SSH. read_file, grep and execute through
// RemoteBackend to the test sshd on 127.0.0.1 (one ControlMaster connection), next to
// FilesystemBackend on the same folder and a bare `ssh host true` over the same master:
// the floor any remote call pays.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { FilesystemBackend } from '../../src-main/core/backends/filesystem/filesystem';
import { LocalShellBackend } from '../../src-main/core/backends/filesystem/local-shell';
import { RemoteShellBackend } from '../../src-main/core/backends/remote/remote-shell';
import { openTestRemoteFolder } from '../../src-main/core/backends/remote/testing/remote-folder';
import { startTestSshd } from '../../src-main/core/backends/remote/testing/sshd';
import { benchRemoteSnapshot } from './remote-checkpoints';
import { errorText, formatMs, formatRatio, median, timeInterleaved } from './measure';
import type { BenchOptions } from './options';
import { progress, type Report } from './report';

function sshTrue(file: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve('ok') : reject(new Error(`ssh exited ${code}`))));
  });
}

export async function benchRemote(report: Report, options: BenchOptions): Promise<void> {
  const section = report.section('Issue 21 · remote folders (SSH to 127.0.0.1)');
  progress('remote: read_file, grep and execute over SSH vs on disk vs a bare ssh call');
  const sshd = await startTestSshd();
  const folder = openTestRemoteFolder(sshd);
  try {
    // A small project: 200 files in 20 folders, one 2,000-line source file to read.
    for (let d = 0; d < 20; d++) {
      fs.mkdirSync(path.join(folder.dir, `pkg${d}`), { recursive: true });
      for (let f = 0; f < 10; f++) {
        const lines = Array.from({ length: 200 }, (_, i) => (i === 100 && f === 3 ? `const needle_${d} = ${i};` : `export const value${i} = ${i * f};`));
        fs.writeFileSync(path.join(folder.dir, `pkg${d}`, `mod${f}.ts`), lines.join('\n') + '\n');
      }
    }
    fs.writeFileSync(path.join(folder.dir, 'main.ts'), Array.from({ length: 2000 }, (_, i) => `// line ${i + 1} of the main module`).join('\n') + '\n');
    const local = new FilesystemBackend({ rootDir: folder.dir });
    const remote = folder.backend;
    const remoteShell = new RemoteShellBackend({ connection: folder.connection });
    const localShell = new LocalShellBackend({ rootDir: folder.dir });
    const ran = (label: string) => (r: { exitCode: number | null; output: string }) => {
      if (r.exitCode !== 0) throw new Error(`${label}: exit ${r.exitCode}: ${r.output.slice(0, 200)}`);
      return label;
    };
    const bare = folder.connection.commandLine('true');
    const check = (label: string) => (r: { error?: string }) => {
      if (r.error) throw new Error(`${label}: ${r.error}`);
      return label;
    };
    const results = await timeInterleaved(
      {
        'ssh true': { run: () => sshTrue(bare.file, bare.args) },
        'read remote': { run: () => remote.read('/main.ts', 0, 2000).then(check('2000 lines')) },
        'read local': { run: () => local.read('/main.ts', 0, 2000).then(check('2000 lines')) },
        'grep remote': { run: () => remote.grep('needle_').then(check('grep')) },
        'grep local': { run: () => local.grep('needle_').then(check('grep')) },
        'execute remote': { run: () => remoteShell.execute('true', { sandbox: false }).then(ran('execute')) },
        'execute local': { run: () => localShell.execute('true', { sandbox: false }).then(ran('execute')) },
      },
      { runs: Math.max(options.runs, 20), budgetMs: 20_000 },
    );
    const ms = (name: string) => median(results[name]!.times);
    const failed = Object.entries(results).filter(([, r]) => r.error !== undefined);
    for (const [name, r] of failed) section.rows.push({ name, ours: `error: ${r.error ?? ''}` });
    const floor = ms('ssh true');
    section.rows.push({ name: 'bare `ssh deepdesk-test true` over the master', ours: formatMs(floor), target: '—' });
    section.rows.push({ name: 'read_file, 2,000 lines: over SSH (ratio vs on disk)', ours: formatMs(ms('read remote')), floor: formatMs(floor), reference: `${formatMs(ms('read local'))} on disk`, ratio: formatRatio(ms('read remote'), ms('read local')), target: '—' });
    section.rows.push({ name: 'grep, 201 files: over SSH (ratio vs on disk)', ours: formatMs(ms('grep remote')), floor: formatMs(floor), reference: `${formatMs(ms('grep local'))} on disk`, ratio: formatRatio(ms('grep remote'), ms('grep local')), target: '—' });
    section.rows.push({ name: 'execute `true` (not sandboxed): over SSH (ratio vs local pty)', ours: formatMs(ms('execute remote')), floor: formatMs(floor), reference: `${formatMs(ms('execute local'))} locally`, ratio: formatRatio(ms('execute remote'), ms('execute local')), target: '—' });
    await benchRemoteSnapshot(section, sshd, options);
    section.notes.push('over SSH: RemoteBackend on the test sshd (127.0.0.1, one ControlMaster); the floor column is a bare `ssh host true` over the same master; the reference column is FilesystemBackend on the same folder');
  } catch (err) {
    section.rows.push({ name: 'remote folder', ours: `error: ${errorText(err)}` });
  } finally {
    await folder.connection.close();
    folder.remove();
    await sshd.dispose();
  }
}
