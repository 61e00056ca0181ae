// What git reads in a repository (SPEC §4, §7), one row per name: what git does with it,
// whether it can make git run a program or look somewhere new, and how each guard treats it.
// The sandbox's read-only and pinned paths, the agent's asking writes, the surface walk's
// rules (surface.ts GIT_DIR_SURFACE, walked locally and on remote folders), the live guard's
// names and the write layer's activating names are all derived here; where two guards treat a
// name differently, the row's `why` says so.

/** What git does with a name. */
export type GitUse =
  /** Read as config: keys there name programs git runs (drivers, hooks path, fsmonitor, ssh). */
  | 'config'
  /** Runs its files as hooks. */
  | 'hooks'
  /** Reads attributes, excludes and sparse patterns (attributes select the config's drivers). */
  | 'info'
  /** Says where the repository is, or where its config and hooks are. */
  | 'pointer'
  /** Makes a folder a git folder when it stands there (HEAD, objects/, refs/). */
  | 'shape'
  /** Holds other git folders, each with its own config and hooks (submodules, linked worktrees). */
  | 'nested'
  /** The repository's state: written by every git command, runs nothing. */
  | 'state'
  /** A work-tree file git reads: names drivers or URLs that only the config can make run. */
  | 'worktree';

/**
 * How the sandbox treats the name in the project's repository: kept read-only during a run;
 * pinned (it stays where it is, its insides writable); compared after the run (surface.ts) and
 * undone when it changed; or left alone.
 */
export type SandboxTreatment = 'read-only' | 'pinned' | 'checked-after' | 'left';

/** When the live guard of a running server (process/git-guard.ts) checks at once on a change there. */
export type LiveWatch =
  /** Any change at or under the name, inside a `.git` folder or not. */
  | 'always'
  /** Only where it makes a repository (outside a `.git` folder): inside one it changes with every commit. */
  | 'outside-git-folder'
  /** Left to the periodic check. */
  | 'periodic';

export interface GitRead {
  /** The name: in a git folder (`config`), or in the work tree (`.git`, `.gitattributes`); `*` is every other name in a git folder. */
  name: string;
  where: 'git-folder' | 'work-tree';
  use: GitUse;
  /** Whether what it holds (or its appearing) can make git run a program: what Deepdesk's own git holds off (safe-config.ts) or the guards keep. */
  runsCode: boolean;
  /** Whether its appearing makes git look somewhere new (a repository where none was): the write layer holds such a layer back for the check. */
  activates: boolean;
  sandbox: SandboxTreatment;
  /** The pattern under which the agent's writes to it ask (agent/permissions/protected-paths.ts); null: they do not. */
  agentAsks: string | null;
  live: LiveWatch;
  /** Why the sandbox and the agent treat it differently, when they do. */
  why?: string;
}

/** Everything inside a `.git` folder asks: the agent cannot know which write makes a repository run something. */
const IN_GIT = '**/.git/**';

export const GIT_READS: readonly GitRead[] = [
  { name: 'hooks', where: 'git-folder', use: 'hooks', runsCode: true, activates: false, sandbox: 'read-only', agentAsks: IN_GIT, live: 'always' },
  { name: 'config', where: 'git-folder', use: 'config', runsCode: true, activates: false, sandbox: 'read-only', agentAsks: IN_GIT, live: 'always' },
  { name: 'config.worktree', where: 'git-folder', use: 'config', runsCode: true, activates: false, sandbox: 'read-only', agentAsks: IN_GIT, live: 'always' },
  {
    name: 'gitdir',
    where: 'git-folder',
    use: 'pointer',
    runsCode: true,
    activates: true,
    sandbox: 'checked-after',
    agentAsks: IN_GIT,
    live: 'always',
    why: 'only in a linked worktree\'s git folder (worktrees/NAME/gitdir), which a command may make: no path to mount before the run, so it is compared after it',
  },
  { name: 'commondir', where: 'git-folder', use: 'pointer', runsCode: true, activates: true, sandbox: 'read-only', agentAsks: IN_GIT, live: 'always' },
  { name: 'info', where: 'git-folder', use: 'info', runsCode: true, activates: false, sandbox: 'read-only', agentAsks: IN_GIT, live: 'always' },
  {
    name: 'HEAD',
    where: 'git-folder',
    use: 'shape',
    runsCode: false,
    activates: true,
    sandbox: 'left',
    agentAsks: IN_GIT,
    live: 'outside-git-folder',
    why: 'every commit and checkout writes it: the sandbox leaves it writable; where a command makes one outside .git (a new repository), the surface walk finds the repository after the run',
  },
  { name: 'objects', where: 'git-folder', use: 'shape', runsCode: false, activates: true, sandbox: 'left', agentAsks: IN_GIT, live: 'outside-git-folder', why: 'written by every commit (as HEAD)' },
  { name: 'refs', where: 'git-folder', use: 'shape', runsCode: false, activates: true, sandbox: 'left', agentAsks: IN_GIT, live: 'outside-git-folder', why: 'written by every commit (as HEAD)' },
  {
    name: 'modules',
    where: 'git-folder',
    use: 'nested',
    runsCode: true,
    activates: false,
    sandbox: 'checked-after',
    agentAsks: IN_GIT,
    live: 'always',
    why: 'git submodule writes there: each submodule git folder in it is walked and its config and hooks compared after the run',
  },
  { name: 'worktrees', where: 'git-folder', use: 'nested', runsCode: true, activates: false, sandbox: 'checked-after', agentAsks: IN_GIT, live: 'always', why: 'git worktree writes there (as modules)' },
  { name: 'logs', where: 'git-folder', use: 'state', runsCode: false, activates: false, sandbox: 'left', agentAsks: IN_GIT, live: 'periodic', why: 'runs nothing, but the agent cannot tell a git folder\'s harmless files from the rest' },
  { name: '*', where: 'git-folder', use: 'state', runsCode: false, activates: false, sandbox: 'left', agentAsks: IN_GIT, live: 'periodic', why: 'the index, packed-refs, FETCH_HEAD…: as logs' },
  {
    name: '.git',
    where: 'work-tree',
    use: 'pointer',
    runsCode: true,
    activates: true,
    sandbox: 'pinned',
    agentAsks: IN_GIT,
    live: 'always',
    why: 'its insides must stay writable for normal work (index.lock, refs, objects), so the sandbox pins it in place instead: moved aside and made anew it would carry hooks of the command\'s choosing',
  },
  {
    name: '.gitattributes',
    where: 'work-tree',
    use: 'worktree',
    runsCode: false,
    activates: false,
    sandbox: 'left',
    agentAsks: null,
    live: 'periodic',
    why: 'it only selects drivers (filter, diff, merge) the config defines; the config is read-only to the sandbox and Deepdesk\'s own git runs no driver',
  },
  { name: '.gitmodules', where: 'work-tree', use: 'worktree', runsCode: false, activates: false, sandbox: 'left', agentAsks: null, live: 'periodic', why: 'URLs and paths only: update commands count only from the config' },
];

const named = (rows: readonly GitRead[]): string[] => rows.filter((r) => r.name !== '*').map((r) => r.name);
const inGitFolder = GIT_READS.filter((r) => r.where === 'git-folder');

/** `.git/NAME` or `NAME`, relative to the work tree. */
function workTreePath(row: GitRead): string {
  return row.where === 'git-folder' ? `.git/${row.name}` : row.name;
}

/** Relative to the project folder, never writable to a sandboxed command. */
export const GIT_READ_ONLY_PATHS: readonly string[] = GIT_READS.filter((r) => r.sandbox === 'read-only').map(workTreePath);

/** Relative to the project folder, kept in place (not moved or replaced) while its insides stay writable. */
export const GIT_PINNED_PATHS: readonly string[] = GIT_READS.filter((r) => r.sandbox === 'pinned').map(workTreePath);

/** The patterns under which the agent's writes to git's files ask. */
export const GIT_ASK_PATTERNS: readonly string[] = [...new Set(GIT_READS.flatMap((r) => (r.agentAsks === null ? [] : [r.agentAsks])))];

/** Names whose appearing can make git look somewhere new (compared case-insensitively for `.git`). */
export const GIT_ACTIVATING_NAMES: ReadonlySet<string> = new Set(named(GIT_READS.filter((r) => r.activates)));

/** Names that make, move or configure a repository wherever they are: a change through one is checked at once. */
export const GIT_LIVE_NAMES: ReadonlySet<string> = new Set(named(GIT_READS.filter((r) => r.live !== 'periodic')));

/** Inside a `.git` folder, the names a change to which is checked at once. */
export const GIT_FOLDER_LIVE_NAMES: ReadonlySet<string> = new Set(named(inGitFolder.filter((r) => r.live === 'always')));

/** Config files of a git folder. */
export const GIT_CONFIG_NAMES: readonly string[] = named(inGitFolder.filter((r) => r.use === 'config'));
/** Pointer files of a git folder. */
export const GIT_POINTER_NAMES: readonly string[] = named(inGitFolder.filter((r) => r.use === 'pointer'));
/** Folders of a git folder whose every entry git runs (hooks) or reads (info). */
export const GIT_RUN_FOLDERS: readonly string[] = named(inGitFolder.filter((r) => r.use === 'hooks' || r.use === 'info'));
/** What makes a folder a git folder: its one file and its folders. */
export const GIT_SHAPE = { file: named(inGitFolder.filter((r) => r.use === 'shape' && r.name === 'HEAD'))[0]!, folders: named(inGitFolder.filter((r) => r.use === 'shape' && r.name !== 'HEAD')) };
/** Names in a git folder that are its own, never a submodule's folder in `modules/`. */
export const GIT_OWN_FOLDERS: readonly string[] = named(inGitFolder.filter((r) => r.use === 'shape' || r.use === 'state' || r.use === 'hooks' || r.use === 'info')).filter((name) => name !== 'HEAD');
