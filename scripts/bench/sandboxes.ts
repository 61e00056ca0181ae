// Issue 53: a thread's workspace in a provider's sandbox, over the Daytona adapter and the real
// @daytonaio/sdk against the local Daytona stand-in (no provider is contacted). Side by side:
// - a tool call through ProviderBackend (read_file of 2,000 lines, execute `true`) beside the
//   same call on the SDK alone (the adapter's download / execute): what the file tools add;
// - the upload of a 2,000-file folder (planUpload + uploadFolder) beside the adapter's bare
//   upload of the same files: what listing the folder as git sees it and the manifest add;
// - the bring-back of a 100-file change (bringBack: the listing, the changed files staged and
//   downloaded through the file API, layer check, apply) beside the bare download of the same 100 files.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bringBack, scanSandbox } from '../../src-main/app/sandboxes/bring-back';
import { planUpload, uploadFolder, type Manifest } from '../../src-main/app/sandboxes/folder-upload';
import { ProviderBackend } from '../../src-main/core/backends/provider/provider-backend';
import { createDaytonaProvider } from '../../src-main/core/sandbox-providers/daytona/daytona-provider';
import type { ProviderSandbox } from '../../src-main/core/sandbox-providers/provider';
import { startDaytonaStandin } from '../../src-main/core/sandbox-providers/testing/daytona-standin';
import { errorText, formatMs, formatRatio, median, timeInterleaved } from './measure';
import type { BenchOptions } from './options';
import { progress, verdict, type Report } from './report';

const FOLDER_FILES = 2_000;
const CHANGED = 100;
/** Issue 66: a provider's read_file within this of the adapter's download alone (one round trip). */
const READ_RATIO = 2;
/** Issue 66: bring-back within this of the adapter's download of the changed files. */
const BRING_BACK_RATIO = 3;
const ENV: NodeJS.ProcessEnv = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'Bench', GIT_AUTHOR_EMAIL: 'bench@example.com', GIT_COMMITTER_NAME: 'Bench', GIT_COMMITTER_EMAIL: 'bench@example.com' };

function git(cwd: string, ...args: string[]): void {
  const res = spawnSync('git', ['-c', 'core.hooksPath=/dev/null', ...args], { cwd, env: ENV, encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`git ${args.join(' ')}: ${res.stderr}`);
}

/** A repository of 2,000 small source files in 20 folders, one commit. */
function makeRepo(dir: string): string[] {
  const rels: string[] = [];
  for (let d = 0; d < 20; d++) {
    fs.mkdirSync(path.join(dir, `pkg${d}`), { recursive: true });
    for (let f = 0; f < FOLDER_FILES / 20; f++) {
      const rel = `pkg${d}/mod${f}.ts`;
      fs.writeFileSync(path.join(dir, rel), Array.from({ length: 20 }, (_, i) => `export const value${i} = ${i * f + d};`).join('\n') + '\n');
      rels.push(rel);
    }
  }
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'base');
  return rels;
}

function ok<T extends { error?: string }>(label: string) {
  return (r: T): string => {
    if (r.error) throw new Error(`${label}: ${r.error}`);
    return label;
  };
}

export async function benchSandboxes(report: Report, options: BenchOptions): Promise<void> {
  const section = report.section('Issue 53 · sandbox providers (Daytona SDK against the local stand-in)');
  progress('sandboxes: tool calls over the Daytona adapter, a 2,000-file upload, a 100-file bring-back');
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dd-bench-sandboxes-')));
  const standin = await startDaytonaStandin();
  const provider = createDaytonaProvider({ env: { ...standin.env } });
  const made: ProviderSandbox[] = [];
  const create = async (): Promise<ProviderSandbox> => {
    const sandbox = await provider.create({ labels: {} });
    made.push(sandbox);
    return sandbox;
  };
  try {
    // A tool call.
    const sandbox = await create();
    const backend = new ProviderBackend(sandbox);
    const main = `${sandbox.workdir}/main.ts`;
    const [put] = await sandbox.upload([{ path: main, content: Buffer.from(Array.from({ length: 2000 }, (_, i) => `// line ${i + 1} of the main module`).join('\n') + '\n') }]);
    if (put?.error) throw new Error(`upload: ${put.error}`);
    const ran = (label: string) => (r: { exitCode: number | null; output: string }) => {
      if (r.exitCode !== 0) throw new Error(`${label}: exit ${r.exitCode}: ${r.output.slice(0, 200)}`);
      return label;
    };
    const calls = await timeInterleaved(
      {
        'read backend': { run: () => backend.read('/main.ts', 0, 2000).then(ok('2000 lines')) },
        'read sdk': {
          run: () =>
            sandbox.download([main]).then(([d]) => {
              if (!d?.content) throw new Error(`download: ${d?.error ?? 'nothing'}`);
              return 'downloaded';
            }),
        },
        'execute backend': { run: () => backend.execute('true').then(ran('execute')) },
        'execute sdk': { run: () => sandbox.execute('true', { timeoutMs: 60_000 }).then(ran('execute')) },
        'one call sdk': { run: () => sandbox.execute('true', { timeoutMs: 60_000, oneCall: true }).then(ran('execute')) },
      },
      { runs: Math.max(options.runs, 20), budgetMs: 20_000 },
    );
    for (const [name, r] of Object.entries(calls)) if (r.error !== undefined) section.rows.push({ name, ours: `error: ${r.error}` });
    const ms = (name: string): number => median(calls[name]!.times);
    section.rows.push({
      name: 'read_file, 2,000 lines: ProviderBackend (ratio vs the adapter’s download alone)',
      ours: formatMs(ms('read backend')),
      floor: `${formatMs(ms('read sdk'))} download`,
      ratio: formatRatio(ms('read backend'), ms('read sdk')),
      target: `≤ ${READ_RATIO}× (one round trip)`,
      result: verdict(ms('read backend') <= READ_RATIO * ms('read sdk')),
    });
    // What no checked read can go under: the script that resolves and checks the path runs through the adapter's execute.
    section.notes.push(
      `sandboxes: a read_file of a file up to 256 KiB is one script in the sandbox, in one call (the path resolved inside the workdir, links followed; a regular file; its size and times; then its bytes, kept when they came through the text output unchanged); the adapter’s one-call execute of \`true\` alone is ${formatMs(ms('one call sdk'))} here, ${formatRatio(ms('one call sdk'), ms('read sdk'))} the download (a session’s execute ${formatMs(ms('execute sdk'))})`,
    );
    section.rows.push({ name: 'execute `true`: ProviderBackend (ratio vs the adapter’s execute alone)', ours: formatMs(ms('execute backend')), reference: `${formatMs(ms('execute sdk'))} execute`, ratio: formatRatio(ms('execute backend'), ms('execute sdk')), target: '—' });

    // Upload of a 2,000-file folder, each run into a sandbox of its own.
    const repo = path.join(root, 'repo');
    fs.mkdirSync(repo);
    const rels = makeRepo(repo);
    const dataDir = path.join(root, 'data');
    fs.mkdirSync(dataDir);
    const files = rels.map((rel) => ({ rel, content: fs.readFileSync(path.join(repo, rel)) }));
    const targets: { ours: ProviderSandbox[]; bare: ProviderSandbox[] } = { ours: [], bare: [] };
    const uploadRuns = Math.max(3, Math.min(options.runs, 5));
    for (let i = 0; i <= uploadRuns; i++) {
      targets.ours.push(await create());
      targets.bare.push(await create());
    }
    let manifest: Manifest = {};
    let last: ProviderSandbox | undefined;
    const uploads = await timeInterleaved(
      {
        ours: {
          run: async () => {
            const into = targets.ours.shift()!;
            const plan = await planUpload(repo, { dataDir, env: ENV });
            manifest = await uploadFolder(into, repo, plan);
            last = into;
            return `${plan.files.length} files`;
          },
        },
        bare: {
          run: async () => {
            const into = targets.bare.shift()!;
            const results = await into.upload(files.map((f) => ({ path: `${into.workdir}/${f.rel}`, content: f.content })));
            const failed = results.filter((r) => r.error !== undefined).length;
            if (failed > 0) throw new Error(`${failed} files failed`);
            return `${results.length} files`;
          },
        },
      },
      { runs: uploadRuns, budgetMs: 60_000 },
    );
    for (const [name, r] of Object.entries(uploads)) if (r.error !== undefined) section.rows.push({ name: `upload ${name}`, ours: `error: ${r.error}` });
    const up = (name: string): number => median(uploads[name]!.times);
    section.rows.push({ name: `upload of a ${FOLDER_FILES.toLocaleString('en')}-file folder: planUpload + uploadFolder (ratio vs the adapter’s bare upload)`, ours: formatMs(up('ours')), reference: `${formatMs(up('bare'))} bare upload`, ratio: formatRatio(up('ours'), up('bare')), target: '—' });

    // Bring-back of a 100-file change: the same sandbox, a new change before each run.
    if (!last) throw new Error('no upload finished');
    const into = last;
    const changed = rels.slice(0, CHANGED);
    let round = 0;
    const backTimes: number[] = [];
    const bareTimes: number[] = [];
    const scanTimes: number[] = [];
    const renameTimes: number[] = [];
    const backRuns = Math.max(options.runs, 5);
    for (let i = 0; i <= backRuns; i++) {
      round++;
      const change = await into.execute(changed.map((rel) => `echo "// change ${round}" >> ${rel}`).join('\n'), { timeoutMs: 60_000 });
      if (change.exitCode !== 0) throw new Error(`change: ${change.output.slice(0, 200)}`);
      const bareStart = performance.now();
      const downloaded = await into.download(changed.map((rel) => `${into.workdir}/${rel}`));
      const bareMs = performance.now() - bareStart;
      if (downloaded.some((d) => d.error !== undefined)) throw new Error('download failed');
      // Where the time goes: the listing alone (one script: every file's kind, mode, size, change time and inode; the cksum of those changed since the last listing).
      const scanStart = performance.now();
      await scanSandbox(into, ['.'], undefined, manifest);
      const scanMs = performance.now() - scanStart;
      const start = performance.now();
      const back = await bringBack({ sandbox: into, folder: repo, manifest, home: os.homedir(), protectedPaths: [] });
      const ms = performance.now() - start;
      // `applied` also names the folders the layer held (pkg0).
      const files = back.applied.filter((rel) => changed.includes(rel)).length;
      if (files !== CHANGED || back.blocked.length > 0) throw new Error(`bring-back applied ${files} of the ${CHANGED} files, blocked ${back.blocked.length}`);
      manifest = back.manifest;
      // What putting 100 files in place costs here by itself: each written beside its file, then renamed over it (as every
      // write Deepdesk makes into a person's folder is, so a power cut never leaves one empty); only the renames timed.
      for (const rel of changed) fs.writeFileSync(path.join(repo, `${rel}.bench-new`), fs.readFileSync(path.join(repo, rel)));
      const renameStart = performance.now();
      for (const rel of changed) fs.renameSync(path.join(repo, `${rel}.bench-new`), path.join(repo, rel));
      const renameMs = performance.now() - renameStart;
      if (i === 0) continue; // untimed round
      renameTimes.push(renameMs);
      backTimes.push(ms);
      bareTimes.push(bareMs);
      scanTimes.push(scanMs);
    }
    section.rows.push({
      name: `bring-back of a ${CHANGED}-file change: bringBack (ratio vs the adapter’s download of the ${CHANGED} files)`,
      ours: formatMs(median(backTimes)),
      floor: `${formatMs(median(bareTimes))} download`,
      ratio: formatRatio(median(backTimes), median(bareTimes)),
      target: `≤ ${BRING_BACK_RATIO}×`,
      result: verdict(median(backTimes) <= BRING_BACK_RATIO * median(bareTimes)),
    });
    const floorParts = [ms('one call sdk'), median(bareTimes), median(renameTimes)];
    const floorSum = floorParts.reduce((a, b) => a + b, 0);
    section.notes.push(
      `sandboxes: what no bring-back of ${CHANGED} files goes under here: one call (the adapter's one-call \`true\`, ${formatMs(floorParts[0]!)}) + the download (${formatMs(floorParts[1]!)}) + ${CHANGED} renames over the files (${formatMs(floorParts[2]!)}, bare) = ${formatMs(floorSum)}, ${formatRatio(floorSum, median(bareTimes))} the download; bring-back is ${formatRatio(median(backTimes), floorSum)} that`,
    );
    section.notes.push(
      `sandboxes: bring-back is the listing of the ${FOLDER_FILES.toLocaleString('en')} files (one script, one walk of the tree: every file's kind, size, change time and inode, and the cksum of those changed since the last listing; ${formatMs(median(scanTimes))} alone here), and staged by the same script; the staging downloaded through the file API, then the layer check and apply while the staging is removed (one script)`,
    );
    section.notes.push('sandboxes: the Daytona adapter over @daytonaio/sdk against the local stand-in (HTTP on 127.0.0.1, commands in bubblewrap); the floor column is the same work through the adapter alone, so the ratio is what Deepdesk adds, not a provider’s network');
  } catch (err) {
    section.rows.push({ name: 'sandbox providers', ours: `error: ${errorText(err)}` });
  } finally {
    for (const sandbox of made) await sandbox.close().catch(() => undefined);
    await standin.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}
