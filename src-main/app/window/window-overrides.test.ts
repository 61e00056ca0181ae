// Every row of THE table that `deepdesk serve` takes over Settings reaches the window with no
// code of its own: the session opens with it, the honest view marks its field and names its
// flag, Settings shows its value, and a save from the dialog does not write it.

import { describe, expect, it } from 'vitest';
import { SESSION_FLAGS } from '../base/session-flags';
import { OVERRIDE_FLAGS, settingsSchema, WINDOW_OVERRIDE_ROWS, type Settings } from '../contract';
import { windowFlags, windowOverrides } from './window-overrides';

const saved: Settings = settingsSchema.parse({ model: 'anthropic:claude-saved', baseUrl: '', rules: [], subagents: [], theme: 'system', apiKeys: {}, mounts: [], memoriesStore: 'sqlite' });
/** A value each row's check takes (a new row's text: any). */
const VALID: Partial<Record<string, string>> = { model: 'openai:flag-model', memoriesStore: 'postgres://me@db/team' };
const given = (row: (typeof WINDOW_OVERRIDE_ROWS)[number]): string | number => (row.kind === 'count' ? 4321 : (VALID[row.key] ?? `flag-${row.flag}`));

describe("the window's flags over Settings", () => {
  it('are the rows of every flag serve takes that wins over Settings, and only those', () => {
    const serveOverSettings = SESSION_FLAGS.filter((row) => 'overSettings' in row && (row.commands as readonly string[]).includes('serve'));
    expect(WINDOW_OVERRIDE_ROWS.map((row) => row.key)).toEqual(serveOverSettings.map((row) => row.key));
    expect(WINDOW_OVERRIDE_ROWS.map((row) => row.key)).toEqual(expect.arrayContaining(['model', 'baseUrl', 'apiKey', 'memoriesStore', 'contextWindow']));
    // `--evict-chars` wins over Settings for `run` and `acp`; serve does not take it.
    expect(windowFlags({ evictChars: 5, model: '' })).toEqual({});
  });

  it('each reaches the session, is marked and named in the honest view, shows its value, and is never saved', () => {
    for (const row of WINDOW_OVERRIDE_ROWS) {
      const value = given(row);
      const flags = windowFlags({ [row.key]: value });
      expect(flags, row.flag).toEqual({ [row.key]: value });
      const view = windowOverrides(flags, () => saved, {});
      // Through the contract as the window receives it: a field the schema did not know would be dropped.
      const shown = settingsSchema.parse(view.forWindow(saved));
      expect(shown.overridden, row.flag).toEqual({ [row.key]: true });
      expect(OVERRIDE_FLAGS[row.key], row.flag).toBe(`--${row.flag}`);
      if (!(row.key in settingsSchema.shape)) continue;
      expect(shown[row.key as keyof Settings], row.flag).toBe(value);
      const { apiKeys: _keys, overridden: _marks, ...draft } = shown;
      expect(view.withoutFlagValues({ ...draft, theme: 'dark' }), row.flag).toEqual({ ...draft, [row.key]: undefined, theme: 'dark' });
    }
  });

  it('shows what the session made of a flag, and the context window of the model in force', () => {
    const view = windowOverrides({ memoriesStore: 'postgres://me@db/team', model: 'openai:gpt-4o' }, () => saved, { memoriesStore: 'postgres://me@db:5432/team' });
    expect(view.forWindow(saved)).toMatchObject({ memoriesStore: 'postgres://me@db:5432/team', model: 'openai:gpt-4o', overridden: { memoriesStore: true, model: true } });
    expect(view.withoutFlagValues({ memoriesStore: 'postgres://me@db:5432/team', theme: 'dark' })).toEqual({ theme: 'dark' });
    // Not even another value: the field is the flag's for this session (as the dialog, which disables it, says).
    expect(view.withoutFlagValues({ model: 'anthropic:other', memoriesStore: 'sqlite', theme: 'dark' })).toEqual({ theme: 'dark' });
    expect(view.contextWindowNow()).toBeGreaterThan(0);
    expect(windowOverrides({ contextWindow: 9000 }, () => saved, {}).contextWindowNow()).toBe(9000);
    expect(windowOverrides({}, () => ({ ...saved, model: '' }), {}).contextWindowNow()).toBe(0);
  });
});
