// Vitest global set-up: bubblewrap for the sandbox tests, found or obtained (system-tools.ts).
// Without it, it prints what to install and lets the sandbox tests fail. The write layer's
// program (out/native/overlay-exec) is built when missing or older than its source, as
// `npm run build` does, so that a run of vitest alone tests the current one.
import { acquireBwrap, BWRAP_ENV, realMachine } from './system-tools';
import { announce } from './announce';
import { buildNative } from '../build-native.mjs';

export default function setup(): void {
  buildNative({ quiet: true });
  const acquired = acquireBwrap(realMachine());
  if (acquired === null) return;
  announce('bubblewrap', acquired);
  if (acquired.ok) process.env[BWRAP_ENV] = acquired.path;
}
