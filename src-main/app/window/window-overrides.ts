// The flags that win over Settings for the window's session (`deepdesk serve --model …`), all
// from THE table's rows (contract/session-flag-table.ts; the window's are WINDOW_OVERRIDE_ROWS):
// the session opens with them, the window shows their values and marks the fields they set,
// and a save never writes one of their values into settings.json. No flag is named here.

import { DEFAULT_CONTEXT_WINDOW, contextWindowFor } from '../../core/models/model-info';
import { parseModelSpec } from '../../core/models/model-spec';
import type { OverSettingsFlags } from '../base/session-flags';
import { settingsSchema, WINDOW_OVERRIDE_ROWS, type OverriddenFields, type Params, type Settings } from '../contract';

/** The window's flags that were given (an empty text is not), as its session takes them. */
export function windowFlags(given: OverSettingsFlags | undefined): OverSettingsFlags {
  return Object.fromEntries(WINDOW_OVERRIDE_ROWS.map((row) => [row.key, given?.[row.key]]).filter(([, value]) => value !== undefined && value !== ''));
}

export interface WindowOverrides {
  readonly flags: OverSettingsFlags;
  /** Settings as the window shows them: the flags' values, and which fields they set. */
  forWindow(settings: Settings): Settings;
  /** A save from the dialog without the fields the flags set. */
  withoutFlagValues(patch: Params<'settings.update'>): Params<'settings.update'>;
  /** The context window of the model Settings and the flags name now, without building one (as createChatModel would set it). */
  contextWindowNow(): number;
}

/**
 * The window's view of its flags over Settings. A flag that sets a field of Settings shows its
 * value there, or what the session made of it (`inForce`: the memories store as opened); one
 * that sets no field (a key) is only marked.
 */
export function windowOverrides(flags: OverSettingsFlags, settings: () => Omit<Settings, 'apiKeys'>, inForce: Partial<Settings>): WindowOverrides {
  const shown = Object.fromEntries(Object.entries(flags).flatMap(([key, value]) => (key in settingsSchema.shape ? [[key, inForce[key as keyof Settings] ?? value]] : []))) as Partial<Settings>;
  const overridden = Object.fromEntries(Object.keys(flags).map((key) => [key, true])) as OverriddenFields;
  const marked = Object.keys(overridden).length > 0 ? { overridden } : {};
  return {
    flags,
    forWindow: (s) => ({ ...s, ...shown, ...marked }),
    // A field a flag sets is the flag's for this session: the window saves none of it, whatever it sends.
    withoutFlagValues: (patch) => Object.fromEntries(Object.entries(patch).filter(([key]) => !(key in shown))),
    contextWindowNow: () => {
      const current = { ...settings(), ...shown };
      if (current.model === '') return 0;
      if (current.contextWindow) return current.contextWindow;
      try {
        const { provider, model } = parseModelSpec(current.model);
        return contextWindowFor(provider, model) ?? DEFAULT_CONTEXT_WINDOW;
      } catch {
        return 0;
      }
    },
  };
}
