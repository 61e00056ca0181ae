// A stand-in for Deepdesk in the pty no-orphans test: runs a command in a pty (unsandboxed),
// prints one line once the command has started, then waits to be SIGKILLed.
// Arguments: folder, command.
import { runInPty } from '../pty-exec';

const [cwd, command] = process.argv.slice(2) as [string, string];
let told = false;
void runInPty(command, {
  cwd,
  env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, SHELL: '/bin/bash', TERM: 'xterm-256color' },
  timeoutS: 600,
  onData: () => {
    if (told) return;
    told = true;
    process.stdout.write('started\n');
  },
});
setInterval(() => undefined, 1000);
