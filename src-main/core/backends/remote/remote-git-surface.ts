// Git's surface on a remote folder (SPEC §7, §13): the same rules as core/git/surface.ts,
// walked on the remote. Before a sandboxed command, a python3 program on the remote walks
// the folder for repositories (`.git` folders, files and links, folders shaped like a git
// folder, what `commondir` and `gitdir:` lead to, `worktrees/`, `modules/`) and sends back
// every surface path with what it holds (content, or a digest when large; never its age);
// the rule table it walks by is core/git/surface.ts GIT_DIR_SURFACE, passed to it. What the
// configs name (includes, `core.hooksPath`, programs) is read here with git/config.ts and
// walked in a further round. After the command (its pid namespace gone), the walk is taken
// again, core/git/surface.ts planSurfaceRepairs decides what to undo exactly as for a local
// folder, and a second program on the remote undoes it, answering for each undo whether it
// was done, so a failed one is reported as blocked.
import { posix } from 'node:path';
import { namedFiles, inertPart } from '../../git/config';
import { GIT_DIR_SURFACE, MAX_KEPT_BYTES, type GitSurface, type SurfaceFile, type SurfaceRepair, type SurfaceRole } from '../../git/surface';
import { isWithin } from '../../sandbox/policy';
import { shQuote, type SshConnection } from './ssh-connection';

const SNAPSHOT_PY = String.raw`import base64, hashlib, json, os, re, stat as S, sys

P = sys.argv[1]
T = json.loads(sys.argv[2])
EXTRAS = json.loads(sys.stdin.read() or '[]')
git_dirs, entries, pointers, targets = {}, {}, {}, {}
join, real = os.path.join, os.path.realpath


def inside(path):
    return path == P or path.startswith(P.rstrip('/') + '/')


def norm(base, path):
    return os.path.normpath(join(base, path))


def scan(folder):
    try:
        return list(os.scandir(folder))
    except OSError:
        return []


def b64(data):
    return base64.b64encode(data).decode()


def read_entry(path):
    """[kind, mode, content (base64), digest] of a path, links not followed; None when missing."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    mode = S.S_IMODE(st.st_mode)
    if S.S_ISLNK(st.st_mode):
        try:
            return ['link', mode, b64(os.fsencode(os.readlink(path))), None]
        except OSError:
            return ['link', mode, None, None]
    if S.S_ISDIR(st.st_mode):
        return ['dir', mode, None, None]
    if not S.S_ISREG(st.st_mode):
        return ['other', mode, None, None]
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        try:
            parts = []
            while True:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    break
                parts.append(chunk)
        finally:
            os.close(fd)
    except OSError:
        return ['file', mode, None, None]
    data = b''.join(parts)
    if len(data) > T['maxKeptBytes']:
        return ['file', mode, None, hashlib.sha256(data).hexdigest()]
    return ['file', mode, b64(data), None]


def record(path, role, git_dir=None):
    if not inside(path) or path in entries:
        return entries.get(path)
    found = read_entry(path)
    if found:
        entries[path] = [path, role, git_dir] + found
    return entries.get(path)


def record_folder(path, child_role, git_dir=None):
    found = record(path, 'folder', git_dir)
    if not found or found[3] != 'dir':
        return
    for child in scan(path):
        record(join(path, child.name), child_role, git_dir)


def text_of(found):
    return base64.b64decode(found[5]).decode('utf-8', 'replace') if found and found[3] == 'file' and found[5] is not None else None


def shaped(names):
    by = {d.name: d for d in names}
    head = by.get(T['shape']['file'])
    return bool(head and head.is_file(follow_symlinks=False) and all(f in by and by[f].is_dir(follow_symlinks=False) for f in T['shape']['folders']))


def add_git_dir(folder, work_tree):
    r = real(folder)
    if not inside(r) or r in git_dirs:
        return
    git_dirs[r] = work_tree
    for name in T['configs']:
        record(join(r, name), 'config', r)
    for name, role in T['folders']:
        record_folder(join(r, name), role, r)
    for name in T['pointers']:
        record(join(r, name), 'pointer', r)
    common = (text_of(entries.get(join(r, T['commondir']))) or '').strip()
    if common:
        targets[join(r, T['commondir'])] = real(norm(r, common))
        add_git_dir(norm(r, common), None)
    for worktree in scan(join(r, T['worktrees'])):
        if worktree.is_dir(follow_symlinks=False):
            add_git_dir(join(r, T['worktrees'], worktree.name), None)
    add_modules(join(r, T['modules']), 0)


def add_modules(folder, depth):
    if depth > T['maxModuleDepth']:
        return
    names = scan(folder)
    if depth > 0 and shaped(names):
        add_git_dir(folder, None)
    for child in names:
        if child.is_dir(follow_symlinks=False) and child.name not in T['notModules']:
            add_modules(join(folder, child.name), depth + 1)


def add_pointer(path, work_tree):
    pointers[path] = work_tree
    found = record(path, 'pointer')
    if not found:
        return
    if found[3] == 'link':
        target = real(path)
    else:
        m = re.search(r'^gitdir:\s*(.+?)\s*$', text_of(found) or '', re.M)
        if not m:
            return
        target = real(norm(os.path.dirname(path), m.group(1)))
    targets[path] = target
    add_git_dir(target, work_tree)


todo = [P]
while todo:
    folder = todo.pop()
    names = scan(folder)
    git_shaped = os.path.basename(folder) != '.git' and shaped(names)
    if git_shaped:
        add_git_dir(folder, None)
    for d in names:
        if d.name == '.git':
            if d.is_dir(follow_symlinks=False):
                add_git_dir(join(folder, '.git'), folder)
            else:
                add_pointer(join(folder, '.git'), folder)
        elif d.is_dir(follow_symlinks=False) and not (git_shaped and d.name == 'objects'):
            todo.append(join(folder, d.name))

# What the configs name (found by the caller, which reads them): includes, hooks folders, programs.
for role, path in EXTRAS:
    path = real(path)
    if role == 'hooks':
        record_folder(path, 'hook')
    else:
        record(path, role)

json.dump({'gitDirs': list(git_dirs.items()), 'entries': list(entries.values()), 'pointers': list(pointers.items()), 'targets': list(targets.items())}, sys.stdout)
`;

const APPLY_PY = String.raw`import base64, json, os, shutil, stat as S, sys

P = sys.argv[1]
STEPS = json.loads(sys.stdin.read())


def inside(path):
    return path.startswith(P.rstrip('/') + '/')


def checked(path):
    """The path when it is below the folder and no folder on the way is a link (the command may have made one)."""
    parent = os.path.dirname(path)
    if not inside(path) or os.path.realpath(parent) != parent:
        raise OSError('not below the folder')
    return path


def remove(path):
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if S.S_ISDIR(st.st_mode):
        shutil.rmtree(path)
    else:
        os.unlink(path)


def remove_new(path):
    """A path the command made where none was: the first link on the way (made by it) or the path itself."""
    rest = os.path.relpath(path, P).split('/')
    at = P
    for name in rest:
        at = os.path.join(at, name)
        try:
            st = os.lstat(at)
        except FileNotFoundError:
            return False
        if S.S_ISLNK(st.st_mode) or at == path:
            remove(checked(at))
            return True
        if not S.S_ISDIR(st.st_mode):
            return False
    return False


def write(path, data, mode):
    temp = '%s.deepdesk-tmp-%d' % (path, os.getpid())
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        os.write(fd, data)
        os.fchmod(fd, mode)
    finally:
        os.close(fd)
    os.rename(temp, path)


def run(step):
    op, path = step[0], step[1]
    if op == 'remove-new':
        return remove_new(path)
    checked(path)
    if op == 'rm':
        remove(path)
    elif op == 'mkdir':
        os.mkdir(path, step[2])
        os.chmod(path, step[2])
    elif op == 'link':
        os.symlink(base64.b64decode(step[2]), path)
    elif op == 'write':
        write(path, base64.b64decode(step[2]), step[3])
    return True


results = []
for group in STEPS:
    outcome = 'ok'
    for step in group:
        try:
            if not run(step):
                outcome = 'none'
        except Exception:
            outcome = 'failed'
            break
    results.append(outcome)
json.dump(results, sys.stdout)
`;

/** Config includes followed this deep (as the local walk). */
const MAX_INCLUDE_ROUNDS = 10;

type Entry = [path: string, role: SurfaceRole, gitDir: string | null, kind: SurfaceFile['kind'], mode: number, content: string | null, digest: string | null];

interface SnapshotReply {
  gitDirs: Array<[string, string | null]>;
  entries: Entry[];
  pointers: Array<[string, string]>;
  targets: Array<[string, string]>;
}

type Named = ['config' | 'hooks' | 'program', string];

async function runPython(connection: SshConnection, python: string, program: string, args: string[], input: string): Promise<unknown> {
  const r = await connection.run(`exec ${[python, '-I', '-S', '-c', program, ...args].map(shQuote).join(' ')}`, { input, timeoutMs: 120_000 });
  if (r.code !== 0) throw new Error(r.stderr.trim().split('\n').pop() || `status ${r.code}`);
  return JSON.parse(r.stdout.toString('utf8'));
}

function surfaceOf(reply: SnapshotReply): GitSurface {
  const entries = new Map<string, SurfaceFile>();
  for (const [path, role, gitDir, kind, mode, content, digest] of reply.entries) {
    entries.set(path, {
      role,
      kind,
      mode,
      // Never judged by age on a remote: every path is the run's unless it is as it was.
      ctimeMs: 0,
      ...(gitDir !== null ? { gitDir } : {}),
      ...(content !== null ? { content: Buffer.from(content, 'base64') } : {}),
      ...(digest !== null ? { digest } : {}),
    });
  }
  return {
    gitDirs: new Map(reply.gitDirs.map(([dir, workTree]) => [dir, workTree ?? undefined])),
    entries,
    pointers: new Map(reply.pointers),
    targets: new Map(reply.targets),
  };
}

/** What the surface's configs name inside the folder (includes, hooks folders, programs). */
function namedInside(surface: GitSurface, projectDir: string, home: string): Named[] {
  const named: Named[] = [];
  for (const [path, entry] of surface.entries) {
    if (entry.role !== 'config' || entry.kind !== 'file' || entry.content === undefined) continue;
    const workTree = entry.gitDir !== undefined ? surface.gitDirs.get(entry.gitDir) : undefined;
    const files = namedFiles(entry.content.toString('utf8'), path, workTree, home);
    named.push(...files.includes.map((p): Named => ['config', p]), ...files.hookFolders.map((p): Named => ['hooks', p]), ...files.programs.map((p): Named => ['program', p]));
  }
  return named.filter(([, p]) => isWithin(p, projectDir));
}

/** Git's surface in every repository of the remote folder `projectDir` (a real path on the remote). */
export async function snapshotRemoteSurface(connection: SshConnection, python: string, projectDir: string, home: string): Promise<GitSurface> {
  const table = JSON.stringify({ ...GIT_DIR_SURFACE, maxKeptBytes: MAX_KEPT_BYTES });
  const asked = new Map<string, Named>();
  for (let round = 0; ; round++) {
    const surface = surfaceOf((await runPython(connection, python, SNAPSHOT_PY, [projectDir, table], JSON.stringify([...asked.values()]))) as SnapshotReply);
    const more = namedInside(surface, projectDir, home).filter(([role, p]) => !asked.has(`${role}:${p}`));
    if (more.length === 0 || round >= MAX_INCLUDE_ROUNDS) return surface;
    for (const n of more) asked.set(`${n[0]}:${n[1]}`, n);
  }
}

type Step = ['rm', string] | ['mkdir', string, number] | ['link', string, string] | ['write', string, string, number] | ['remove-new', string];

/** Steps that put `entry` back at `path` (a folder with what it held before), as surface.ts putBack does. */
function putBackSteps(path: string, entry: SurfaceFile, before: GitSurface): Step[] {
  if (entry.kind === 'dir') {
    const children = [...before.entries].filter(([child]) => posix.dirname(child) === path);
    return [['mkdir', path, entry.mode], ...children.flatMap(([child, kept]) => putBackSteps(child, kept, before))];
  }
  if (entry.kind === 'link' && entry.content) return [['link', path, entry.content.toString('base64')]];
  if (entry.kind === 'file' && entry.content) return [['write', path, entry.content.toString('base64'), entry.mode]];
  return [];
}

export function repairSteps(repair: SurfaceRepair, before: GitSurface): Step[] {
  switch (repair.action) {
    case 'put-back':
      return [['rm', repair.path], ...putBackSteps(repair.path, repair.was!, before)];
    case 'inert':
      return [['write', repair.path, Buffer.from(inertPart(repair.now.content!.toString('utf8'))).toString('base64'), repair.now.mode]];
    case 'remove':
      return [['rm', repair.path]];
  }
}

/** What became of each group of steps: done, nothing there (`remove-new` found nothing), or failed. */
export type StepOutcome = 'ok' | 'none' | 'failed';

/**
 * Runs groups of steps on the remote, each group stopping at its first failure; no path
 * below a link (one the command made) and none outside `projectDir` is touched.
 */
export async function applyRemoteSteps(connection: SshConnection, python: string, projectDir: string, groups: Step[][]): Promise<StepOutcome[]> {
  if (groups.length === 0) return [];
  try {
    const outcomes = (await runPython(connection, python, APPLY_PY, [projectDir], JSON.stringify(groups))) as StepOutcome[];
    return groups.map((_, i) => outcomes[i] ?? 'failed');
  } catch {
    return groups.map(() => 'failed');
  }
}
