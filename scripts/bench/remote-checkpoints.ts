// Issue 21: a checkpoint snapshot of a remote folder (core/checkpoints/remote-folder.ts)
// next to the local walk of the same folder: the first snapshot (every file listed and
// fetched) and a step's re-walk of an unchanged folder (one listing call, nothing fetched).

import fs from 'node:fs';
import path from 'node:path';
import { openTestRemoteFolder } from '../../src-main/core/backends/remote/testing/remote-folder';
import type { TestSshd } from '../../src-main/core/backends/remote/testing/sshd';
import type { FolderSource } from '../../src-main/core/checkpoints/folder-source';
import { remoteFolderSource } from '../../src-main/core/checkpoints/remote-folder';
import { scanFolderSliced, type ScanResult } from '../../src-main/core/checkpoints/scan';
import type { ManifestRow } from '../../src-main/core/checkpoints/types';
import { formatMs, formatRatio, median, timeInterleaved } from './measure';
import type { BenchOptions } from './options';
import type { Report } from './report';

type Section = ReturnType<Report['section']>;

/** A folder of 1,000 files (50 folders of 20, 2 KB each) on the test sshd; times its snapshots. */
export async function benchRemoteSnapshot(section: Section, sshd: TestSshd, options: BenchOptions): Promise<void> {
  const folder = openTestRemoteFolder(sshd);
  try {
    for (let d = 0; d < 50; d++) {
      fs.mkdirSync(path.join(folder.dir, `dir${d}`));
      for (let f = 0; f < 20; f++) fs.writeFileSync(path.join(folder.dir, `dir${d}`, `file${f}.txt`), `folder ${d} file ${f}\n`.repeat(100));
    }
    await timeSnapshots(section, folder.dir, remoteFolderSource(folder.connection), options);
  } finally {
    await folder.connection.close();
    folder.remove();
  }
}

async function timeSnapshots(section: Section, dir: string, source: FolderSource, options: BenchOptions): Promise<void> {
  // What a step's walk compares with: the first snapshot, hashed well before the files last changed (not racy).
  const settled = (r: ScanResult): Map<string, ManifestRow> => {
    const rows = new Map<string, ManifestRow>();
    for (const [rel, row] of r.manifest) if (row !== null) rows.set(rel, { ...row, hashedAt: row.hashedAt + 60_000 });
    return rows;
  };
  const remoteManifest = settled(await source.walk(new Map(), false));
  const localManifest = settled(await scanFolderSliced(dir, new Map(), false));
  const expect = (files: number | null) => (r: ScanResult) => {
    const n = [...r.manifest.values()].filter((row) => row?.type === 'f').length;
    if (files !== null && n !== files) throw new Error(`saw ${n} files, not ${files}`);
    if (r.changes.length > 0) throw new Error(`${r.changes.length} changes in an unchanged folder`);
    return 'ok';
  };
  const results = await timeInterleaved(
    {
      'first remote': { run: () => source.walk(new Map(), false).then(expect(1000)) },
      'first local': { run: () => scanFolderSliced(dir, new Map(), false).then(expect(1000)) },
      'again remote': { run: () => source.walk(remoteManifest, true).then(expect(null)) },
      'again local': { run: () => scanFolderSliced(dir, localManifest, true).then(expect(null)) },
    },
    { runs: Math.max(options.runs, 10), budgetMs: 20_000 },
  );
  for (const [name, r] of Object.entries(results)) if (r.error !== undefined) section.rows.push({ name: `snapshot: ${name}`, ours: `error: ${r.error}` });
  const ms = (name: string) => median(results[name]!.times);
  section.rows.push({ name: 'snapshot of a 1,000-file remote folder: first (all fetched; ratio vs on disk)', ours: formatMs(ms('first remote')), reference: `${formatMs(ms('first local'))} on disk`, ratio: formatRatio(ms('first remote'), ms('first local')), target: '—' });
  section.rows.push({ name: 'snapshot of a 1,000-file remote folder: unchanged re-walk of a step (ratio vs on disk)', ours: formatMs(ms('again remote')), reference: `${formatMs(ms('again local'))} on disk`, ratio: formatRatio(ms('again remote'), ms('again local')), target: '—' });
}
