// `${VAR}` and `${VAR:-default}` in configuration values (Claude Code's .mcp.json syntax).
// As in the shell, `:-` takes the default when the variable is unset or empty; `${VAR}` of an
// unset variable is an error for the caller to report (never silently the empty string: a
// server started without its token fails in ways far from the cause). Anything else,
// `$VAR` without braces included, is left as written.

/** What a variable's name may be (the names `${…}` expands). */
export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export type Expanded = { ok: true; value: string } | { ok: false; missing: string[] };

export function expandVars(text: string, env: NodeJS.ProcessEnv): Expanded {
  const missing: string[] = [];
  const value = text.replace(REFERENCE, (whole, name: string, fallback: string | undefined) => {
    const set = env[name];
    if (fallback !== undefined) return set === undefined || set === '' ? fallback : set;
    if (set === undefined) {
      missing.push(name);
      return whole;
    }
    return set;
  });
  return missing.length > 0 ? { ok: false, missing: [...new Set(missing)] } : { ok: true, value };
}

/** The names of the variables `text` expands (each once, in order): what expandVars reads from the environment. */
export function variableNames(text: string): string[] {
  return [...new Set([...text.matchAll(REFERENCE)].map((m) => m[1]!))];
}
