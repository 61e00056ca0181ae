// A folder on another machine as a Place (script/place.ts) for the script backend (SPEC §13):
// scripts run over the SshConnection (a kept remote shell, or a channel of its own for a large
// stdin), their stdin and stdout carry bytes, so file contents travel with the script that
// checked the path (`bytes`). A lost connection is a PlaceError naming the host; the next call
// connects again.

import { PlaceError, type Place, type PlaceFileError, type PlaceRun, type PlaceRunOptions } from '../script/place';
import { lastLine, parseReply } from '../script/script-replies';
import { shQuote } from '../../text/shell-quote';
import { SshConnectionError, type SshConnection } from './ssh-connection';

export class SshPlace implements Place {
  readonly transfer = 'bytes' as const;

  constructor(readonly connection: SshConnection) {}

  get id(): string {
    return `ssh:${this.connection.label}`;
  }

  /** The host as messages name it (`dev@box:2222`). */
  get label(): string {
    return this.connection.label;
  }

  get where(): string {
    return `on ${this.connection.label}`;
  }

  get root(): string {
    return this.connection.target.path;
  }

  async run(script: string, options: PlaceRunOptions = {}): Promise<PlaceRun> {
    let r;
    try {
      r = await this.connection.run(script, {
        ...(options.stdin !== undefined ? { input: options.stdin } : {}),
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
    } catch (err) {
      if (err instanceof SshConnectionError) throw new PlaceError(err.message);
      throw err;
    }
    // The script backend's scripts always answer; silence with ssh's own status means the connection went.
    if (r.code === 255 && parseReply(r.stdout).status === '') {
      throw new PlaceError(`lost the connection (${this.label}): ${lastLine(r.stderr) || 'no answer'}`);
    }
    return { output: r.stdout, stderr: r.stderr, exitCode: r.code, timedOut: false };
  }

  /** Each file by its absolute path on the remote (parents made), one call per file. */
  async upload(files: ReadonlyArray<{ path: string; content: Uint8Array }>, signal?: AbortSignal): Promise<Array<{ path: string; error?: PlaceFileError }>> {
    const out: Array<{ path: string; error?: PlaceFileError }> = [];
    for (const f of files) {
      const r = await this.run(`f=${shQuote(f.path)}\n[ -d "$f" ] && { echo is_directory; exit 0; }\nmkdir -p -- "$(dirname -- "$f")" 2>/dev/null && cat > "$f" 2>/dev/null && echo ok || echo permission_denied`, { stdin: f.content, ...(signal ? { signal } : {}) });
      const said = r.output.toString('utf8').trim();
      out.push(said === 'ok' ? { path: f.path } : { path: f.path, error: said === 'is_directory' ? 'is_directory' : 'permission_denied' });
    }
    return out;
  }

  /** Each file by its absolute path on the remote, one call per file. */
  async download(paths: readonly string[], signal?: AbortSignal): Promise<Array<{ path: string; content?: Uint8Array; error?: PlaceFileError }>> {
    const out: Array<{ path: string; content?: Uint8Array; error?: PlaceFileError }> = [];
    for (const path of paths) {
      const r = await this.run(`f=${shQuote(path)}\nif [ ! -e "$f" ]; then printf m; elif [ -d "$f" ]; then printf d; elif [ -r "$f" ]; then printf o; exec cat -- "$f"; else printf p; fi`, signal ? { signal } : {});
      const tag = r.output.subarray(0, 1).toString('utf8');
      if (tag === 'o') out.push({ path, content: new Uint8Array(r.output.subarray(1)) });
      else out.push({ path, error: tag === 'm' ? 'file_not_found' : tag === 'd' ? 'is_directory' : 'permission_denied' });
    }
    return out;
  }
}
