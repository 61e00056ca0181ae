// One request frame in, one response frame out: the part both transports share.
// No app logic here: validation comes from the contract, answers from the WindowApi.

import { ContractError, parseRequest, type ResponseFrame } from '../../app/contract';
import type { WindowApi } from '../../app/base/window-api';

/** The id to answer with: the frame's own when it has a usable one, else -1. */
export function frameId(frame: unknown): number {
  if (typeof frame !== 'object' || frame === null) return -1;
  const id = (frame as { id?: unknown }).id;
  return typeof id === 'number' && Number.isInteger(id) && id >= 0 ? id : -1;
}

export function errorFrame(id: number, err: unknown): ResponseFrame {
  if (err instanceof ContractError) return { id, error: { message: err.message, code: err.code } };
  const message = err instanceof Error ? err.message : String(err);
  return { id, error: { message: message || 'failed', code: 'failed' } };
}

/** Never throws: every failure becomes an error frame. */
export async function handleRequestFrame(api: WindowApi, frame: unknown): Promise<ResponseFrame> {
  let request: ReturnType<typeof parseRequest>;
  try {
    request = parseRequest(frame);
  } catch (err) {
    return errorFrame(frameId(frame), err);
  }
  try {
    const result = await api.handle(request.method, request.params);
    return { id: request.id, result: result ?? null };
  } catch (err) {
    return errorFrame(request.id, err);
  }
}
