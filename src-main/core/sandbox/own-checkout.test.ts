// The Deepdesk checkout opened as the project (issue 78, Trust VIII): its build, launcher,
// resources and dependencies — what Deepdesk runs and loads outside the sandbox — stay out of a
// sandboxed command's reach; the rest of the checkout is the command's to write. By effect.
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalShellBackend } from '../backends/filesystem/local-shell';
import { builtProgram } from '../process/built-program';
import { createSandbox, detectSandbox } from './index';

const available = await detectSandbox();
const checkout = (() => {
  let dir = import.meta.dirname;
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return dir;
})();

describe.skipIf(!available.available || builtProgram('overlay-exec') === undefined)("Deepdesk's own checkout as the project", () => {
  it('its build, launcher, resources and dependencies stay out of reach; the rest is the command\'s to write', async () => {
    const name = `planted-${process.pid}-${Date.now()}`;
    const planted = ['out/native', 'out', 'bin', 'node_modules', 'resources'].map((dir) => join(checkout, dir, name));
    const data = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-own-checkout-')));
    const mine = join(checkout, `${name}.txt`);
    try {
      const sandbox = await createSandbox({ projectDir: checkout, dataDir: data });
      if (!sandbox) throw new Error('no sandbox');
      const backend = new LocalShellBackend({ rootDir: checkout, env: { HOME: data }, sandbox });
      const result = await backend.execute(`${planted.map((p) => `touch '${p}'`).join('; ')}; echo tried`, { timeoutS: 120 });
      expect(result.output).toContain('tried');
      for (const p of planted) expect(existsSync(p), p).toBe(false);
      expect((await backend.execute(`echo ok > '${mine}'`, { timeoutS: 120 })).exitCode).toBe(0);
      expect(readFileSync(mine, 'utf8')).toBe('ok\n');
    } finally {
      for (const p of [...planted, mine]) rmSync(p, { force: true });
      rmSync(data, { recursive: true, force: true });
    }
  });
});
