// What the `modal` SDK's failures mean, in plain words (SPEC §18). Most arrive as nice-grpc's
// ClientError (a gRPC status code and the server's details); the SDK's own classes are told
// apart by name, so this module needs no SDK import. Server text is data: one short line.

import type { SandboxFailure, SandboxFileError } from '../provider';
import { SandboxProviderError, providerText } from '../provider';


// gRPC status codes.
const DEADLINE_EXCEEDED = 4;
const NOT_FOUND = 5;
const PERMISSION_DENIED = 7;
const RESOURCE_EXHAUSTED = 8;
const FAILED_PRECONDITION = 9;
const UNAVAILABLE = 14;
const UNAUTHENTICATED = 16;


interface GrpcLike {
  name: string;
  code?: unknown;
  details?: unknown;
  message: string;
}

export function modalProviderError(err: unknown, where: { serverUrl: string; sandboxId?: string }): SandboxProviderError {
  if (err instanceof SandboxProviderError) return err;
  const e: GrpcLike = err instanceof Error ? err : { name: 'Error', message: String(err) };
  const said = providerText(typeof e.details === 'string' && e.details ? e.details : e.message);
  const code = e.name === 'ClientError' && typeof e.code === 'number' ? e.code : undefined;
  const made = (message: string, reason: SandboxFailure): SandboxProviderError => new SandboxProviderError(message, reason, 'modal');
  const gone = (): SandboxProviderError => made(`The Modal sandbox ${where.sandboxId} is gone (terminated, deleted or expired).`, 'gone');

  if (code === UNAUTHENTICATED || code === PERMISSION_DENIED) {
    return made(`Modal refused the token (MODAL_TOKEN_ID and MODAL_TOKEN_SECRET): ${said}`, 'auth');
  }
  if (code === UNAVAILABLE && !where.sandboxId) return made(`Cannot reach Modal at ${where.serverUrl}: ${unreachableCause(said)}.`, 'unreachable');
  if (code === RESOURCE_EXHAUSTED || e.name === 'ResourceExhaustedError') return made(`Modal says the account is out of quota: ${said}`, 'quota');
  if (where.sandboxId && (code === NOT_FOUND || code === FAILED_PRECONDITION || e.name === 'NotFoundError' || e.name === 'ConflictError')) return gone();
  if (code === UNAVAILABLE) return made(`Cannot reach Modal at ${where.serverUrl} (sandbox ${where.sandboxId}): ${unreachableCause(said)}.`, 'unreachable');
  if (code === DEADLINE_EXCEEDED || e.name === 'TimeoutError' || /deadline exceeded/i.test(e.message)) return made(`Modal did not answer in time: ${said}`, 'timeout');
  return made(`Modal failed: ${said}`, 'failed');
}

function unreachableCause(said: string): string {
  if (/ECONNREFUSED/.test(said)) return 'connection refused';
  if (/ENOTFOUND|EAI_AGAIN/.test(said)) return 'the host name does not resolve';
  if (/ETIMEDOUT/.test(said)) return 'the connection timed out';
  return said.replace(/\.$/, '');
}

/** A per-file failure of the SDK's file API; anything else (the sandbox gone, the service down) is thrown on. */
export function modalFileError(err: unknown): SandboxFileError {
  const name = err instanceof Error ? err.name : '';
  switch (name) {
    case 'SandboxFilesystemNotFoundError':
      return 'file_not_found';
    case 'SandboxFilesystemIsADirectoryError':
      return 'is_directory';
    case 'SandboxFilesystemPermissionError':
      return 'permission_denied';
    case 'SandboxFilesystemNotADirectoryError':
    case 'SandboxFilesystemError':
    case 'InvalidError':
      return 'invalid_path';
    default:
      throw err;
  }
}
