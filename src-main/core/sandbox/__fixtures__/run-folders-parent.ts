// A stand-in for Deepdesk in the leftovers test: starts a metering proxy (as for an external
// agent), runs a sandboxed command that waits, in a folder that allows a domain (so through
// the domain proxy), prints the run folders this process has made meanwhile (its TMPDIR,
// write layer and the two proxies' socket folders), then waits to be SIGKILLed before it can
// clean up. Arguments: project folder, data folder, the Deepdesk checkout it was bundled from
// (whose out/native/ holds the write layer's program).
// This is a new process: its first command is the first to meet what earlier ones left.
import { readdirSync } from 'node:fs';
import { startMeteringProxy } from '../../acp-client/metering-proxy';
import { runInPty } from '../../process/pty-exec';
import { createSandbox } from '../index';
import { runFoldersDir } from '../run-folders';
import { useProgramsOf } from '../../process/built-program';

const [project, dataDir, checkout] = process.argv.slice(2) as [string, string, string];
useProgramsOf(checkout);
await startMeteringProxy({ upstream: 'http://127.0.0.1:9', agent: { name: 'stand-in', provider: 'anthropic' } });
const sandbox = await createSandbox({ projectDir: project, dataDir, allowedDomains: ['example.com'] });
if (!sandbox) throw new Error('no sandbox here');
let seen = '';
void runInPty('echo started; sleep 60', {
  cwd: project,
  env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dataDir },
  timeoutS: 120,
  sandbox,
  onData: (chunk) => {
    if (seen.includes('started')) return;
    seen += chunk;
    if (!seen.includes('started')) return;
    const mine = readdirSync(runFoldersDir()).filter((name) => name.includes(`.${process.pid}-`));
    process.stdout.write(`${JSON.stringify({ dir: runFoldersDir(), mine })}\n`);
  },
}).then((result) => {
  // It never started: said, so that the test does not wait for a line that never comes.
  if (!seen.includes('started')) process.stdout.write(`${JSON.stringify({ failed: `${result.exitCode}: ${result.output}` })}\n`);
});
setInterval(() => undefined, 1000);
