// Request bodies checked as the reference server checks them (zod, `@hono/zod-validator`):
// a body that does not fit is answered 400, naming each field that does not.

import type { z } from 'zod';
import { ProtocolHttpError } from './http';

/** The body as `schema` reads it, else a 400 `{"detail": "field: why; …"}`. A missing body is `{}`. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const result = schema.safeParse(body ?? {});
  if (result.success) return result.data;
  const why = result.error.issues.map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : 'body'}: ${issue.message}`).join('; ');
  throw new ProtocolHttpError(400, `Invalid request: ${why}`);
}
