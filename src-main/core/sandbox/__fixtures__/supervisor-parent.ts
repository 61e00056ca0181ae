// A stand-in for Deepdesk in the no-orphans test: starts the probe server through the
// supervisor, has it spawn children, prints the host pids of the whole tree, then waits to
// be SIGKILLed. Arguments: sandboxed|unsandboxed, project folder, data folder, probe script.
import { createInterface } from 'node:readline';
import { collectProcessTree } from '../../process/process-tree';
import { startProcess } from '../supervisor';

const [mode, project, dataDir, probe] = process.argv.slice(2) as [string, string, string, string];
const server = await startProcess({
  command: process.execPath,
  args: [probe],
  cwd: project,
  env: {},
  sandbox: mode === 'sandboxed' ? { projectDir: project, dataDir } : false,
});
server.stdin.write(`${JSON.stringify({ id: 1, op: 'spawn' })}\n`);
await new Promise<void>((resolve) => createInterface({ input: server.stdout }).once('line', () => resolve()));
// The children are running (their parent answered after spawning them).
process.stdout.write(`${JSON.stringify({ pid: server.pid, tree: collectProcessTree(server.pid) })}\n`);
setInterval(() => undefined, 1000);
