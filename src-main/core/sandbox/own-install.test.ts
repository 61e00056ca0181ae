// What Deepdesk runs outside the sandbox is not writable from inside it (issue 78, Trust VIII):
// the write layer's program runs as the person at the start of every sandboxed command, so a
// project that holds Deepdesk (in its node_modules, or a Deepdesk checkout opened as a
// project) must not let a sandboxed command replace it. By effect: the marker never appears,
// the program is unchanged. (The checkout case is own-checkout.test.ts: the sandbox looks for
// its program once a process.)
// vitest-isolate: it points the lookup of Deepdesk's programs at a temporary install, and the
// sandbox keeps the write layer's program it found once a process — in a shared worker, every
// sandboxed command of the files after this one would start a program deleted with its folder.
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalShellBackend } from '../backends/filesystem/local-shell';
import { builtProgram, useProgramsOf } from '../process/built-program';
import { createSandbox, detectSandbox } from './index';

const available = await detectSandbox();
const checkout = (() => {
  let dir = import.meta.dirname;
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return dir;
})();
const overlayExec = builtProgram('overlay-exec', checkout);

let root: string;
let project: string;
let marker: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'deepdesk-own-install-')));
  project = join(root, 'project');
  marker = join(root, 'ran');
  mkdirSync(join(root, 'data'), { recursive: true });
  mkdirSync(project);
});

afterEach(() => {
  useProgramsOf(checkout);
  rmSync(root, { recursive: true, force: true });
});

async function backendFor(folder: string): Promise<LocalShellBackend> {
  const sandbox = await createSandbox({ projectDir: folder, dataDir: join(root, 'data') });
  if (!sandbox) throw new Error('no sandbox');
  return new LocalShellBackend({ rootDir: folder, env: { HOME: join(root, 'data') }, sandbox });
}

describe.skipIf(!available.available || overlayExec === undefined)("Deepdesk's own install inside the folder", () => {
  it('a project with Deepdesk in its node_modules: a sandboxed command cannot replace the write layer program, its code or its dependencies', async () => {
    const install = join(project, 'node_modules', 'deepdesk');
    mkdirSync(join(install, 'out', 'native'), { recursive: true });
    mkdirSync(join(project, 'node_modules', 'dep'), { recursive: true });
    writeFileSync(join(install, 'package.json'), '{"name":"deepdesk","type":"module"}\n');
    writeFileSync(join(project, 'node_modules', 'dep', 'index.js'), 'export {};\n');
    const program = join(install, 'out', 'native', 'overlay-exec');
    copyFileSync(overlayExec!, program);
    chmodSync(program, 0o755);
    const before = readFileSync(program);
    useProgramsOf(install);
    expect(builtProgram('overlay-exec')).toBe(program);

    const backend = await backendFor(project);
    const evil = `#!/bin/sh\\ntouch ${marker}\\nexec ${overlayExec} "$@"\\n`;
    const attack = await backend.execute(
      `printf '${evil}' > node_modules/deepdesk/out/native/overlay-exec; chmod +x node_modules/deepdesk/out/native/overlay-exec; ` +
        `echo 'process.exit(3)' > node_modules/dep/index.js; echo '{}' > node_modules/deepdesk/package.json; echo done`,
      { timeoutS: 60 },
    );
    expect(attack.output).toContain('done');
    expect(attack.sandboxBlocked).toBeDefined();
    // The next sandboxed command starts the program from the same place.
    const next = await backend.execute('echo next', { timeoutS: 60 });
    expect(next.output).toContain('next');
    expect(existsSync(marker)).toBe(false);
    expect(readFileSync(program).equals(before)).toBe(true);
    expect(readFileSync(join(project, 'node_modules', 'dep', 'index.js'), 'utf8')).toBe('export {};\n');
    expect(readFileSync(join(install, 'package.json'), 'utf8')).toBe('{"name":"deepdesk","type":"module"}\n');
    // The rest of the project stays the command's to write.
    expect((await backend.execute('echo ok > mine.txt && cat mine.txt', { timeoutS: 60 })).output).toContain('ok');
    expect(readFileSync(join(project, 'mine.txt'), 'utf8')).toBe('ok\n');
  });
});
