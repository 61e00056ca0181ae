// The containment conformance suite's contract (SPEC §7, DESIGN "process/conformance"): an
// execution path is one way Deepdesk runs something on a folder's behalf (a sandboxed
// command, locally or over ssh, a long-lived sandboxed server, a hook). Each adversarial
// case runs a shell script under the path and then judges by effect, as the person: their
// own git in the folder must not run a marker program, files outside must not change, no
// secret or credential may be copied into the folder or the output.

/** The folders and files one case works with; all under `root`, removed afterwards. */
export interface Scene {
  root: string;
  /** The project folder (real path): a git repository with one commit (see scene.ts for its files). */
  project: string;
  /** A folder outside the project holding `target.txt` ("original\n"). */
  outside: string;
  /** The marker program, outside the project: each run of it appends a line to `fired`. */
  fire: string;
  fired: string;
  /** Deepdesk's data folder for this scene. */
  dataDir: string;
  /** The person's home (shared by the scenes of one file): see environment.ts. */
  home: string;
  /** Digits unique to this scene, for finding its processes (`sleep <token>N`). */
  token: string;
  /** With SceneOptions.worktree: the project folder is a linked worktree in the data folder. */
  worktree?: WorktreeScene;
}

/**
 * A thread's worktree (SPEC §16): the repository is made as for any scene, outside the data
 * folder, and `git worktree add <dataDir>/worktrees/w -b deepdesk/w` makes the project folder.
 * The data folder holds what the app keeps there, each file with a value no run may see.
 */
export interface WorktreeScene {
  /** The repository (a real path, outside the data folder) whose linked worktree the project folder is. */
  repository: string;
  /** The worktree's admin folder in the repository: `<repository>/.git/worktrees/w`. */
  admin: string;
  /** Another worktree of the repository in the data folder (`<dataDir>/worktrees/<name>`), with a file no commit holds. */
  other: string;
  /** The data folder's files (relative to it, the other worktree's among them) → the value each holds (a line of its own). */
  dataFiles: Readonly<Record<string, string>>;
  /** Names in the data folder that only a listing of it would show. */
  unlistedNames: readonly string[];
  /** What git reads to find and run the worktree's repository, as made: path → text, null where there is none. */
  surface: Readonly<Record<string, string | null>>;
}

export interface SceneOptions {
  /** The project folder is a file system of its own of this many bytes (a disk that fills up). */
  smallDiskBytes?: number;
  /** The project folder is a linked worktree in the data folder (Scene.worktree). */
  worktree?: boolean;
  /**
   * The repository's config sets `core.hooksPath` to this folder of the work tree (husky's
   * `.husky`), which holds a tracked `pre-commit` that runs nothing (HOOKS_PATH_HOOK).
   */
  hooksPath?: string;
}

export interface PersonResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The person at the folder's machine: their own shell, outside any sandbox (local: sh; remote: over ssh). */
export interface Person {
  /** Runs a POSIX sh script in `cwd`; never throws. */
  sh(script: string, cwd: string): Promise<PersonResult>;
}

/** One run under a path, its effects final (a server: after it called `ready`, while it still runs). */
export interface ContainedRun {
  /** What the run gave back (a command's result, a server's stdout and log, a hook's stdout and stderr): what the model or person sees. */
  output: string;
  /** The run's `[Sandbox blocked …]` line, if it had one. */
  blocked?: string;
  /** Ends what still runs (a server); resolves when it has ended. Idempotent. */
  end(): Promise<void>;
}

export interface RunOptions {
  /** The run's time limit: a command's or hook's timeout; a server must call `ready` within it. */
  timeoutS: number;
}

/** The kinds of case; a path declares, with a reason, the ones that do not apply to it. */
export type CaseGroup =
  | 'git'
  | 'links'
  | 'protected'
  | 'secrets'
  | 'file-kinds'
  | 'credentials'
  | 'process-tree'
  | 'application'
  | 'trusted-script'
  | 'worktree';

/**
 * A file in the folder that a trusted configuration entry runs (a hook's script, SPEC §9):
 * how the path declares and trusts one, and how the product then runs it.
 */
/** Whose configuration runs the script. */
export type TrustedScriptSource = 'folder' | 'person';

export interface TrustedScriptRunner {
  /**
   * As the person: writes the configuration that runs the folder's `rel` script — the
   * folder's own hooks (then trusted), or the person's own (`<data-dir>/hooks.json`, naming it
   * `$CLAUDE_PROJECT_DIR/rel`, which no trust of the folder guards).
   */
  install(scene: Scene, rel: string, by: TrustedScriptSource): Promise<void>;
  /** Makes the product run the folder's trusted entries (a hook's event), as it would; resolves when they ended. */
  trigger(scene: Scene): Promise<void>;
  /** A sandboxed command of the same folder: the one that tries to rewrite the script. */
  neighbour: ExecutionPath;
}

export interface ExecutionPath {
  name: string;
  /** For each group that does not apply to this path: why (shown as the skipped case's name). */
  notApplicable: Partial<Record<CaseGroup, string>>;
  /** For a single case of a group that otherwise applies (by the case's name): why not here. */
  notApplicableCases?: Readonly<Record<string, string>>;
  person: Person;
  setUp(env: ConformanceEnvironment): Promise<void>;
  tearDown(): Promise<void>;
  /**
   * Runs `script` (POSIX sh, in the project folder) under this path. The script may call the
   * shell function `ready` to say it did its thing (the path defines it); a server is left
   * running from then on, until `end()`.
   */
  run(scene: Scene, script: string, options: RunOptions): Promise<ContainedRun>;
  /** Paths that run a folder's trusted configuration (hooks) provide this. */
  trustedScript?: TrustedScriptRunner;
}

/** Deepdesk's process for the suite: a person's home with secrets in it, and credentials in its environment. */
export interface ConformanceEnvironment {
  home: string;
  /** Contents of the secret files under `home`, by path relative to it. */
  secretFiles: Readonly<Record<string, string>>;
  /** The secret each of those files holds (what must not be seen anywhere), by the same path. */
  secretOfFile: Readonly<Record<string, string>>;
  /** The person's own Claude Code settings and skills under `home` (no secret, but never to be moved or changed), by path relative to it. */
  personClaudeFiles: Readonly<Record<string, string>>;
  /** Values of Deepdesk's own credentials set in its environment, by variable. */
  credentials: Readonly<Record<string, string>>;
  /** Every value no run may see: the secret files' secrets and the credentials. */
  secretValues: readonly string[];
}
