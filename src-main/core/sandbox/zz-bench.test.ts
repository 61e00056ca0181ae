import { mkdtempSync, mkdirSync, writeFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'vitest';
import { LocalShellBackend } from '../backends/local-shell';
import { createSandbox } from './index';

it('bench', async () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'bench-')));
  const project = join(root, 'p');
  mkdirSync(project);
  mkdirSync(join(root, 'd'));
  for (let i = 0; i < 50; i++) {
    mkdirSync(join(project, 'd' + i));
    writeFileSync(join(project, 'd' + i, 'f'), 'x');
  }
  const sandbox = await createSandbox({ projectDir: project, dataDir: join(root, 'd') });
  const backend = new LocalShellBackend({ rootDir: project, env: { HOME: root }, sandbox: sandbox! });
  for (const cmd of ['true', 'echo x > out.txt']) {
    await backend.execute(cmd, { timeoutS: 30 });
    const times: number[] = [];
    for (let i = 0; i < 31; i++) {
      const t = performance.now();
      await backend.execute(cmd, { timeoutS: 30 });
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    console.log(`BENCH ${cmd}: median ${times[15]!.toFixed(1)} ms, p25 ${times[7]!.toFixed(1)}, p75 ${times[23]!.toFixed(1)}`);
  }
  rmSync(root, { recursive: true, force: true });
}, 300000);
