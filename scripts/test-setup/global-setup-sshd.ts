// Vitest global set-up: an OpenSSH server for the remote-folder tests, found or obtained
// (system-tools.ts). Without it, it prints what to install and lets those tests fail.
import { acquireSshd, realMachine, SSHD_ENV } from './system-tools';
import { announce } from './announce';

export default function setup(): void {
  const acquired = acquireSshd(realMachine());
  if (acquired === null) return;
  announce('sshd', acquired);
  if (acquired.ok) process.env[SSHD_ENV] = acquired.path;
}
