// RemoteBackend (SPEC §13): a folder on another machine, reached over one SshConnection, as the
// script backend (script/script-backend.ts) at an SshPlace: the file tools are the script
// backend's, their scripts the race-free descriptor operations (script/descriptor-ops.ts), file
// contents on the scripts' stdin and stdout. A lost connection is an `{ error }` naming the host;
// the next call connects again.

import { ScriptBackend, WHOLE_READ_BYTES, type ScriptBackendOptions } from '../script/script-backend';
import type { SshConnection } from './ssh-connection';
import { SshPlace } from './ssh-place';

export { WHOLE_READ_BYTES };

export interface RemoteBackendOptions extends Pick<ScriptBackendOptions, 'maxFileSizeMb' | 'searchTimeBudgetMs'> {
  connection: SshConnection;
}

export class RemoteBackend extends ScriptBackend {
  readonly connection: SshConnection;

  constructor(options: RemoteBackendOptions) {
    super(new SshPlace(options.connection), { maxFileSizeMb: options.maxFileSizeMb, searchTimeBudgetMs: options.searchTimeBudgetMs });
    this.connection = options.connection;
  }
}
