// Vitest global set-up: bubblewrap for the sandbox tests, found or obtained (system-tools.ts).
// Without it, it prints what to install and lets the sandbox tests fail.
import { acquireBwrap, BWRAP_ENV, realMachine } from './system-tools';
import { announce } from './announce';

export default function setup(): void {
  const acquired = acquireBwrap(realMachine());
  if (acquired === null) return;
  announce('bubblewrap', acquired);
  if (acquired.ok) process.env[BWRAP_ENV] = acquired.path;
}
