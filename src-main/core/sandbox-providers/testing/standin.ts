// What every provider's stand-in (for tests only) offers its tests: the variables that point
// the provider's own SDK at it, its boxes, and the failures a real service can give.

import type { IncomingMessage } from 'node:http';
import type { SandboxProviderName } from '../provider';
import type { LocalBox } from './local-box';

export interface ProviderStandin {
  provider: SandboxProviderName;
  /** The provider's own variables that point its SDK at this stand-in, with a key it accepts. */
  env: Record<string, string>;
  /** The stand-in's sandboxes that are not deleted, by id. */
  boxes: ReadonlyMap<string, LocalBox>;
  /** Every request as `METHOD path` (or the RPC's name), oldest first: what the SDK sent. */
  requests: string[];
  /** The sandbox id of every file-writing request, oldest first: how many uploads went where. */
  uploads: string[];
  /** The id of every sandbox made as a copy of another (a fork, or a sandbox of a filesystem snapshot). */
  forks: string[];
  /** The sandbox is gone at once, as if the provider deleted it: running commands end, every later call says so. */
  vanish(id: string): void;
  /** From now on the service refuses the key ('auth') or says the account is out of quota ('quota'); null: answers again. */
  fail(kind: 'auth' | 'quota' | null): void;
  /** true: listing answers every sandbox on the account, as a server that drops the filter it was asked for. */
  ignoreListFilter(on: boolean): void;
  /**
   * The sandbox's labels (tags, metadata) are now exactly these, as another tool of the same
   * account could have set them: a sandbox Deepdesk did not make, for the label checks' tests.
   */
  relabel(id: string, labels: Record<string, string>): void;
  close(): Promise<void>;
}

/** A request's whole body. */
export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
