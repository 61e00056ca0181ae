// Vitest global set-up of the end-to-end project: a Chromium to drive, found or obtained
// (system-tools.ts). Without one it prints what to install and lets the suites fail.
import { acquireChromium, CHROMIUM_ENV, realMachine } from './system-tools';
import { announce } from './announce';

export default function setup(): void {
  const acquired = acquireChromium(realMachine());
  announce('Chromium', acquired);
  // Test workers start after this and inherit the choice.
  if (acquired.ok) process.env[CHROMIUM_ENV] = acquired.path;
}
