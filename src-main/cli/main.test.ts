import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from './main';

const repo = resolve(import.meta.dirname, '../..');

describe('cli', () => {
  it('exits 2 on an unknown command', async () => {
    expect(await main(['nope'])).toBe(2);
  });

  it('`deepdesk --version` and `-v` print `deepdesk X.Y.Z` (the package version) and exit 0, through the built bin', () => {
    const { version } = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-v']) {
      const ran = spawnSync(process.execPath, [join(repo, 'bin/deepdesk.mjs'), flag], { encoding: 'utf8' });
      expect(ran.stderr).toBe('');
      expect(ran.stdout).toBe(`deepdesk ${version}\n`);
      expect(ran.status).toBe(0);
    }
  });
});
