// RemoteBackend (SPEC §13): a folder on another machine, reached over one SshConnection, as the
// script backend (script/script-backend.ts) at an SshPlace: the file tools are the script
// backend's, their scripts the race-free descriptor operations (script/descriptor-ops.ts), file
// contents on the scripts' stdin and stdout. A lost connection is an `{ error }` naming the host;
// the next call connects again.

import { ScriptBackend, WHOLE_READ_BYTES } from '../script/script-backend';
import type { SshConnection } from './ssh-connection';
import { SshPlace } from './ssh-place';

export { WHOLE_READ_BYTES };

export interface RemoteBackendOptions {
  connection: SshConnection;
  /** grep skips larger files (default 10). */
  maxFileSizeMb?: number;
  /** grep and glob give up after this long (default 30000). */
  searchTimeBudgetMs?: number;
}

export class RemoteBackend extends ScriptBackend {
  readonly connection: SshConnection;

  constructor(options: RemoteBackendOptions) {
    super(new SshPlace(options.connection), {
      ...(options.maxFileSizeMb !== undefined ? { maxFileSizeMb: options.maxFileSizeMb } : {}),
      ...(options.searchTimeBudgetMs !== undefined ? { searchTimeBudgetMs: options.searchTimeBudgetMs } : {}),
    });
    this.connection = options.connection;
  }
}
