// Which Node runs the CLI: the bin says plainly when a Node is too old for it, and nothing
// extra otherwise; npm on an older system Node (which only runs npm; `npx deepdesk` and the
// npm scripts use the Node 22 that `npm install` puts in node_modules) has no engine to warn about.

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeProblem } from '../../bin/node-check.mjs';

const repo = resolve(import.meta.dirname, '../..');
const bin = join(repo, 'bin/deepdesk.mjs');
const problem = nodeProblem;

describe('the Node the bin runs on', () => {
  it('is fine from 22.12 on, and too old before, in one line that says what to do', () => {
    for (const v of ['22.12.0', 'v22.23.3', '23.0.0', '24.1.0']) expect(problem(v), v).toBeNull();
    for (const v of ['20.20.2', 'v22.11.0', '18.19.0']) {
      const line = problem(v);
      expect(line, v).toMatch(/^deepdesk: needs Node\.js 22\.12 or later, and this is Node\.js \d+\.\d+\.\d+\. .*npx deepdesk/);
      expect(line).not.toContain('\n');
    }
    expect(problem(process.versions.node)).toBeNull();
  });

  it('prints nothing but what was asked for on a Node that runs it', () => {
    const run = spawnSync(process.execPath, [bin, '--help'], { cwd: repo, encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/^Usage: deepdesk/);
  });

  it('fails clearly, before loading anything, on an older Node of this machine', (ctx) => {
    const old = ['/usr/bin/node', '/usr/local/bin/node', '/bin/node'].find((p) => {
      if (!existsSync(p)) return false;
      const v = spawnSync(p, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
      return v !== '' && problem(v) !== null;
    });
    if (!old) ctx.skip('no Node older than 22.12 on this machine');
    const run = spawnSync(old!, [bin, 'memories', 'ls'], { cwd: repo, encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^deepdesk: needs Node\.js 22\.12 or later, and this is Node\.js [\d.]+\. [^\n]*\n$/);
  });

  it('asks npm for no newer Node than the one npm itself may run on (no engine warning on each npx run)', () => {
    const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { engines?: { node?: string }; devDependencies?: Record<string, string> };
    const minimum = /^>=\s*(\d+)(?:\.(\d+))?/.exec(pkg.engines?.node ?? '');
    expect(minimum, pkg.engines?.node).not.toBeNull();
    expect(Number(minimum![1])).toBeLessThanOrEqual(20);
    // The Node the CLI really needs comes with the install.
    expect(pkg.devDependencies?.node).toMatch(/^\^?22\./);
  });
});
