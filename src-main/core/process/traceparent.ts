// The trace a command runs in (SPEC §17): the W3C `traceparent` of the tool call's span,
// given to the command as TRACEPARENT so that a traced program it starts joins the agent's
// trace. Added after the environment was scrubbed (it is ours, not the user's), and only
// when it is well formed: nothing else can reach a command's environment this way.

export const TRACEPARENT_VAR = 'TRACEPARENT';

const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** A well-formed W3C traceparent: version, 32-hex trace id, 16-hex parent id, flags; not version ff, no all-zero id. */
export function isTraceparent(value: unknown): value is string {
  if (typeof value !== 'string' || !TRACEPARENT.test(value)) return false;
  const [version, traceId, spanId] = value.split('-');
  return version !== 'ff' && !/^0+$/.test(traceId ?? '') && !/^0+$/.test(spanId ?? '');
}

/** `{ TRACEPARENT }` for a well-formed traceparent, else nothing. */
export function traceparentEnv(traceparent: string | undefined): Record<string, string> {
  return isTraceparent(traceparent) ? { [TRACEPARENT_VAR]: traceparent } : {};
}
