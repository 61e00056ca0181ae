// Requests checked as the reference server checks them (zod, `@hono/zod-validator`): a body,
// query or path parameter that does not fit is answered 400, naming each field that does not.
// The reference's own 422s (a busy thread under `reject`, a store label with a period) are
// thrown where they are decided.

import { z } from 'zod';
import { ProtocolHttpError, type ProtocolRequest } from './http';

/** The body (or query) as `schema` reads it, else a 400 `{"detail": "field: why; …"}`. A missing body is `{}`. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const result = schema.safeParse(body ?? {});
  if (result.success) return result.data;
  const why = result.error.issues.map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : 'body'}: ${issue.message}`).join('; ');
  throw new ProtocolHttpError(400, `Invalid request: ${why}`);
}

/** The request's query parameters as `schema` reads them (400 as a body). */
export function parseQuery<S extends z.ZodType>(schema: S, request: ProtocolRequest): z.output<S> {
  return parseBody(schema, Object.fromEntries(request.query));
}

/** The path parameter `name`, which the reference takes only as a UUID (400 otherwise). */
export function uuidParam(request: ProtocolRequest, name: string): string {
  const id = request.params[name];
  if (id === undefined || !z.uuid().safeParse(id).success) throw new ProtocolHttpError(400, `Invalid request: ${name}: Invalid UUID`);
  return id;
}

/** Whether `value` contains `filter` as PostgreSQL's jsonb `@>` (the reference's metadata and values filters). */
export function contains(value: unknown, filter: unknown): boolean {
  if (filter === null || typeof filter !== 'object') return value === filter;
  if (Array.isArray(filter)) return Array.isArray(value) && filter.every((f) => value.some((v) => contains(v, f)));
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  return Object.entries(filter).every(([k, f]) => contains((value as Record<string, unknown>)[k], f));
}
