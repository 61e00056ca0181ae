// THE table of session flags (app/contract/session-flag-table.ts, read by app/base/session-flags.ts)
// is the only statement of them: each command's parser takes exactly its rows, the values are
// checked and shaped once, the host accepts what a command sends, `--help` lists them, and no
// command reads one on its own.

import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { overSettingsFlags, readSessionFlags, SESSION_FLAGS } from '../app/base/session-flags';
import { configurableFlags, sessionFlagsRequest } from '../app/base/session-flag-schemas';
import { COMMAND_OPTIONS } from './command-table';
import { helpText, parseCommand, sessionFlagsOf, UsageError } from './usage';

const takes = (row: (typeof SESSION_FLAGS)[number], command: string): boolean => (row.commands as readonly string[]).includes(command);

describe('the session flags table', () => {
  it('gives each command exactly the flags of its rows, typed as the row says', () => {
    for (const [command, options] of Object.entries(COMMAND_OPTIONS)) {
      for (const row of SESSION_FLAGS) {
        const option = (options as Record<string, { type: string; multiple?: boolean } | undefined>)[row.flag];
        // `sandboxes` has no --sandbox-id; `mcp` keeps no session but reads --mcp-config and --trust.
        if (!takes(row, command)) {
          expect(option, `${command} --${row.flag}`).toBeUndefined();
          continue;
        }
        expect(option?.type, `${command} --${row.flag}`).toBe(row.kind === 'switch' ? 'boolean' : 'string');
        expect(option?.multiple === true, `${command} --${row.flag} repeatable`).toBe(row.kind === 'texts' || row.kind === 'files');
      }
    }
  });

  it('reads, checks and shapes the values once: counts, files from the working folder, the sandbox from two flags', () => {
    const { values } = parseCommand(['--context-window', '8000', '--mcp-config', 'a.json', '--sandbox', 'daytona', '--sandbox-id', 'sb-1', '--trust', '--model', 'openai:gpt-4o'], COMMAND_OPTIONS.run);
    const flags = readSessionFlags('run', values, '/work/here');
    expect(flags).toEqual({ contextWindow: 8000, mcpConfig: ['/work/here/a.json'], sandbox: { provider: 'daytona', id: 'sb-1' }, trust: true, model: 'openai:gpt-4o' });
    expect(overSettingsFlags(flags)).toEqual({ contextWindow: 8000, model: 'openai:gpt-4o' });
    expect(sessionFlagsRequest.parse({ ...flags, cwd: '/work/here', env: {} })).toEqual({ ...flags, cwd: '/work/here', env: {} });
    expect(() => sessionFlagsOf('run', { 'evict-chars': '0' })).toThrow(new UsageError("--evict-chars must be a positive whole number (got '0')"));
    expect(() => sessionFlagsOf('run', { sandbox: 'aws' })).toThrow(/--sandbox must be daytona/);
    expect(() => sessionFlagsOf('run', { 'sandbox-id': 'a b' })).toThrow(/not a sandbox id/);
    expect(() => sessionFlagsOf('run', { 'memories-store': 'mysql://x' })).toThrow(UsageError);
    // A model spec is checked once, here, for every command that takes one.
    for (const command of ['run', 'serve', 'acp']) {
      expect(() => sessionFlagsOf(command, { model: 'gpt-4o' }), command).toThrow(UsageError);
      expect(() => sessionFlagsOf(command, { model: 'gpt-4o' }), command).toThrow(/^Invalid model "gpt-4o": expected PROVIDER:MODEL/);
    }
    // A flag the command does not take is not read, even if a caller hands it over.
    expect(readSessionFlags('skills', { 'evict-chars': '5' }, '/')).toEqual({});
  });

  it('reads the rows a protocol run may name from config.configurable, and refuses a bad one', () => {
    expect(configurableFlags({ model: 'openai:gpt-4o', folder: '/x', contextWindow: 5 }, (m) => new Error(m))).toEqual({ model: 'openai:gpt-4o' });
    expect(() => configurableFlags({ model: 42 }, (m) => new Error(m))).toThrow('config.configurable.model must be a string.');
  });

  it('lists every flag in --help', () => {
    for (const row of SESSION_FLAGS) expect(helpText(), row.flag).toContain(`--${row.flag}`);
  });

  it('is the only place a command reads a session flag from its parsed values', () => {
    const dir = resolve(import.meta.dirname);
    const offenders: string[] = [];
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))) {
      const text = readFileSync(join(dir, file), 'utf8');
      for (const row of SESSION_FLAGS) {
        const dotted = /^[a-z]+$/.test(row.flag) ? `|values\\.${row.flag}\\b` : '';
        if (new RegExp(`values\\[['"]${row.flag}['"]\\]${dotted}`).test(text)) offenders.push(`${file}: --${row.flag}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});
