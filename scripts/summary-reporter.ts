import { relative } from 'node:path';
import type { Reporter, SerializedError, TestModule, TestRunEndReason, TestSuite } from 'vitest/node';

// Prints a plain `tests: N passed, M failed, K skipped` closing line that CI tooling reads in
// any language. A failure outside a test counts as failed too: a file that cannot be loaded, a
// hook that throws (its module or suite carries the error) and an unhandled error each add one,
// so a run that did not really pass can never close with `0 failed`.

export interface RunTally {
  passed: number;
  failed: number;
  skipped: number;
  /** One line per failure that is not a test's own: where it happened and its first line. */
  outsideTests: string[];
}

export function tallyRun(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>, root = process.cwd()): RunTally {
  const tally: RunTally = { passed: 0, failed: 0, skipped: 0, outsideTests: [] };
  const failOutside = (where: string, errors: ReadonlyArray<SerializedError>): void => {
    if (errors.length === 0) return;
    tally.failed++;
    tally.outsideTests.push(`${where}: ${firstLine(errors[0]!)}`);
  };
  for (const mod of modules) {
    const file = relative(root, mod.moduleId);
    for (const test of mod.children.allTests()) {
      const state = test.result().state;
      if (state === 'passed') tally.passed++;
      else if (state === 'failed') tally.failed++;
      else tally.skipped++;
    }
    const loaded = mod.children.size > 0;
    failOutside(loaded ? `${file} (hook)` : `${file} (failed to load)`, mod.errors());
    for (const suite of mod.children.allSuites()) failOutside(`${file} › ${suitePath(suite)} (hook)`, suite.errors());
  }
  for (const error of unhandledErrors) failOutside('unhandled error', [error]);
  return tally;
}

function suitePath(suite: TestSuite): string {
  const names: string[] = [];
  for (let s: TestSuite | undefined = suite; s !== undefined; s = s.parent.type === 'suite' ? s.parent : undefined) names.unshift(s.name);
  return names.join(' › ');
}

function firstLine(error: SerializedError): string {
  const text = error.name && error.message && !error.message.startsWith(error.name) ? `${error.name}: ${error.message}` : (error.message ?? String(error));
  return text.split('\n')[0] ?? text;
}

export function closingLine(tally: RunTally): string {
  return `tests: ${tally.passed} passed, ${tally.failed} failed, ${tally.skipped} skipped`;
}

export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>, reason: TestRunEndReason): void {
    const tally = tallyRun(modules, unhandledErrors);
    // Vitest fails the run for reasons it does not attribute to anything we can see (a global
    // set-up that threw): the line must still not read as a pass.
    if (reason === 'failed' && tally.failed === 0) {
      tally.failed++;
      tally.outsideTests.push('the run failed outside any test file (see the errors above)');
    }
    let out = '\n';
    if (tally.outsideTests.length > 0) out += `failed outside tests:\n${tally.outsideTests.map((line) => `  ${line}\n`).join('')}`;
    out += `${closingLine(tally)}\n`;
    process.stdout.write(out);
  }
}
