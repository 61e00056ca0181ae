// Commands where no write layer can be made run on the live folder, and the folder itself is
// checked after the run (index.ts: the protected paths that did not exist and git's surface,
// taken before the command starts). Here no layer can be made because the temp folder's path
// holds a comma, which an overlay's options cannot name (write-layer.ts createWriteLayer).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalShellBackend } from '../backends/filesystem/local-shell';
import { createSandbox, detectSandbox } from './index';
import { runFoldersDir } from './run-folders';

const available = await detectSandbox();
const realTmp = tmpdir();
let root: string;
let backend: LocalShellBackend;
let project: string;

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(realTmp, 'deepdesk-no,layer-')));
  // Read per call by os.tmpdir(): the run folders (and a layer's) are made under it.
  process.env.TMPDIR = join(root, 'tmp');
  mkdirSync(process.env.TMPDIR);
  project = join(root, 'project');
  mkdirSync(project);
  execFileSync('git', ['init', '-q', project]);
  writeFileSync(join(project, 'README.md'), 'hello\n');
  const sandbox = await createSandbox({ projectDir: project, dataDir: join(root, 'data') });
  if (!sandbox) throw new Error('no sandbox');
  backend = new LocalShellBackend({ rootDir: project, env: { HOME: join(root, 'home') }, sandbox });
});

afterAll(() => {
  process.env.TMPDIR = realTmp;
  rmSync(root, { recursive: true, force: true });
});

describe.skipIf(!available.available)('a sandboxed command without a write layer', () => {
  it('runs on the live folder, and a protected path it makes is removed and named', async () => {
    expect(runFoldersDir()).toContain(',');
    const made = await backend.execute('grep -c " overlay " /proc/self/mountinfo; mkdir -p .deepdesk/x; echo a > .deepdesk/settings.json; echo kept > notes.txt', { timeoutS: 30 });
    // No overlay under the command: its writes went straight to the folder.
    expect(made.output.split('\n')[0]).toBe('0');
    expect(readFileSync(join(project, 'notes.txt'), 'utf8')).toBe('kept\n');
    expect(existsSync(join(project, '.deepdesk'))).toBe(false);
    expect(made.sandboxBlocked).toContain('/.deepdesk/settings.json (a protected path)');
  });

  it("git's hooks stay read-only and a hook a command makes does not stay", async () => {
    const made = await backend.execute('printf "#!/bin/sh\\ntouch /tmp/pwned\\n" > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit; echo done', { timeoutS: 30 });
    expect(existsSync(join(project, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(made.sandboxBlocked).toContain('.git/hooks');
  });
});
