// Argument schemas shared by the tools. Models often send numbers and booleans as
// strings; those are accepted when unambiguous, everything else is a clear error.

import { z } from 'zod';
import { normalizeVirtualPath } from '../backends/paths';

export const pathArg = (what: string) =>
  z.string({ error: `${what} must be a string path such as /src/index.ts` });

export const intArg = (what: string, min: number) =>
  z.preprocess(
    (v) => (typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : v),
    z.number({ error: `${what} must be a whole number` }).int(`${what} must be a whole number`).min(min, `${what} must be at least ${min}`),
  );

export const numberArg = (what: string) =>
  z.preprocess(
    (v) => (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v)) ? Number(v) : v),
    z.number({ error: `${what} must be a number` }),
  );

export const boolArg = (what: string) =>
  z.preprocess(
    (v) => (v === 'true' ? true : v === 'false' ? false : v),
    z.boolean({ error: `${what} must be true or false` }),
  );

/** Formats zod issues as one line a model can act on. */
export function describeIssues(tool: string, error: z.ZodError): string {
  const parts = error.issues.map((issue) => {
    const where = issue.path.length > 0 ? issue.path.join('.') : 'arguments';
    if (issue.code === 'invalid_type' && issue.input === undefined) return `${where} is required`;
    return `${where}: ${issue.message}`;
  });
  return `invalid arguments for ${tool}: ${parts.join('; ')}`;
}

/** Validates a virtual path argument; returns the normalised path or the refusal reason. */
export function checkPath(raw: string): { path: string } | { error: string } {
  const checked = normalizeVirtualPath(raw);
  return checked.ok ? { path: checked.path } : { error: checked.error };
}
