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
//
// The same walk goes through every folder (git folders' insides too) for the file kinds no
// command may add (SPEC §7): set-id files and folders, devices, fifos and sockets. The walk
// after a command compares them with the walk before it (by path and inode) and undoes what
// the command made, through descriptors that follow no link; the person's own stay.
import { posix } from 'node:path';
import { namedFiles, inertPart } from '../../git/config';
import { GIT_DIR_SURFACE, MAX_KEPT_BYTES, type GitSurface, type SurfaceFile, type SurfaceRepair, type SurfaceRole } from '../../git/surface';
import type { BlockedItem } from '../../sandbox/blocked';
import { isPathInside } from '../../fs/path-inside';
import { type SshConnection } from './ssh-connection';
import { shQuote } from '../../text/shell-quote';

const SNAPSHOT_PY = String.raw`import base64, errno, hashlib, json, os, re, stat as S, sys

P = sys.argv[1]
T = json.loads(sys.argv[2])
IN = json.loads(sys.stdin.read() or '{}')
EXTRAS = IN.get('extras', [])
# The file kinds before the command, when this is the walk after it: what it made is undone.
BEFORE = IN.get('kinds')
git_dirs, entries, pointers, targets = {}, {}, {}, {}
# [path, 'dev:ino', mode] of every set-id file or folder, device, fifo and socket; [path, errno] of folders that could not be read.
odd, unread = [], []
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


def errno_name(e):
    return errno.errorcode.get(e.errno, 'EIO') if isinstance(e, OSError) and e.errno else 'EIO'


def note_kind(path, st):
    mode = st.st_mode
    plain = S.S_ISREG(mode) or S.S_ISDIR(mode)
    if S.S_ISLNK(mode) or (plain and not mode & 0o6000):
        return
    odd.append([path, '%d:%d' % (st.st_dev, st.st_ino), mode])


def walk_scan(folder):
    try:
        return list(os.scandir(folder))
    except OSError as e:
        unread.append([folder, errno_name(e)])
        return []


try:
    note_kind(P, os.lstat(P))
except OSError as e:
    unread.append([P, errno_name(e)])
# Every folder is walked for file kinds; git's surface is looked for outside git folders' insides.
todo = [(P, True)]
while todo:
    folder, look = todo.pop()
    names = walk_scan(folder)
    git_shaped = look and os.path.basename(folder) != '.git' and shaped(names)
    if git_shaped:
        add_git_dir(folder, None)
    for d in names:
        try:
            note_kind(d.path, d.stat(follow_symlinks=False))
        except OSError as e:
            unread.append([d.path, errno_name(e)])
        is_dir = d.is_dir(follow_symlinks=False)
        if look and d.name == '.git':
            if is_dir:
                add_git_dir(join(folder, '.git'), folder)
                todo.append((d.path, False))
            else:
                add_pointer(join(folder, '.git'), folder)
        elif is_dir:
            todo.append((d.path, look and not (git_shaped and d.name == 'objects')))

# What the configs name (found by the caller, which reads them): includes, hooks folders, programs.
for role, path in EXTRAS:
    path = real(path)
    if role == 'hooks':
        record_folder(path, 'hook')
    else:
        record(path, role)



def open_parent(path):
    """A descriptor of path's folder, reached from the folder's parent without following a link on the way; and path's name."""
    top = os.path.dirname(P.rstrip('/')) or '/'
    names = os.path.relpath(path, top).split('/')
    fd = os.open(top, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for name in names[:-1]:
            below = os.open(name, os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
            os.close(fd)
            fd = below
    except BaseException:
        os.close(fd)
        raise
    return fd, names[-1]


def chmod_here(fd, name, mode):
    try:
        os.chmod(name, mode, dir_fd=fd, follow_symlinks=False)
    except (NotImplementedError, ValueError):
        # A Python or libc without fchmodat(AT_SYMLINK_NOFOLLOW): through a descriptor of the entry itself.
        own = os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
        try:
            if S.S_ISLNK(os.fstat(own).st_mode):
                raise OSError(errno.ELOOP, 'a link')
            os.chmod('/proc/self/fd/%d' % own, mode)
        finally:
            os.close(own)


def undo(path, key, bits):
    """Clears \`bits\` of a set-id entry, or removes a device, fifo or socket (bits 0): the entry \`key\` names, not one put in its place."""
    fd, name = open_parent(path)
    try:
        st = os.stat(name, dir_fd=fd, follow_symlinks=False)
        if '%d:%d' % (st.st_dev, st.st_ino) != key:
            raise OSError(errno.ESTALE, 'replaced')
        if not bits:
            os.unlink(name, dir_fd=fd)
            return
        chmod_here(fd, name, S.S_IMODE(st.st_mode) & ~bits)
        if os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode & bits:
            raise OSError(errno.EPERM, 'still set')
    finally:
        os.close(fd)


undone = []
if BEFORE is not None:
    had = {(path, key): mode for path, key, mode in BEFORE['odd']}
    for path, key, mode in odd:
        was = had.get((path, key))
        special = not (S.S_ISREG(mode) or S.S_ISDIR(mode))
        bits = 0 if special else mode & 0o6000 & ~(was or 0)
        if was is not None and (special or not bits):
            continue
        try:
            undo(path, key, bits)
            undone.append([path, mode, bits, None])
        except Exception as e:
            undone.append([path, mode, bits, errno_name(e)])
    unread_before = set(path for path, _ in BEFORE['unread'])
    unread = [u for u in unread if u[0] not in unread_before]

json.dump({'gitDirs': list(git_dirs.items()), 'entries': list(entries.values()), 'pointers': list(pointers.items()), 'targets': list(targets.items()),
           'kinds': {'odd': odd, 'unread': unread}, 'undone': undone}, sys.stdout)
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
  kinds: FileKinds;
  /** What the walk after a command undid of what it made: path, its mode, the set-id bits cleared (0: removed), and the errno of a failed undo. */
  undone: Array<[path: string, mode: number, bits: number, failed: string | null]>;
}

/**
 * The folder's entries that no command may add (SPEC §7 "no setuid, setgid or device
 * file"), as a walk found them: the person's own are left as they are after a command.
 */
export interface FileKinds {
  /** Set-id files and folders, devices, fifos and sockets: path, `dev:ino` and mode. */
  odd: Array<[path: string, key: string, mode: number]>;
  /** Folders and entries the walk could not read: path and errno. */
  unread: Array<[path: string, errno: string]>;
}

/** A walk of the folder: git's surface and the file kinds; after a command, what of those it made was undone. */
export interface RemoteSnapshot {
  surface: GitSurface;
  kinds: FileKinds;
  /** Only for a walk after a command: what was undone, or could not be, or could not be checked. */
  undone: BlockedItem[];
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
  return named.filter(([, p]) => isPathInside(projectDir, p));
}

/** What a set-id entry or a special file is called in the blocked line. */
function kindName(mode: number, bits: number): string {
  const type = mode & 0o170000;
  if (type === 0o020000 || type === 0o060000) return 'a device file';
  if (type === 0o010000) return 'a fifo';
  if (type === 0o140000) return 'a socket';
  const setId = [bits & 0o4000 ? 'setuid' : '', bits & 0o2000 ? 'setgid' : ''].filter(Boolean).join(' and ');
  return `a ${setId} ${type === 0o040000 ? 'folder' : 'file'}`;
}

function undoneItems(reply: SnapshotReply): BlockedItem[] {
  const byPath = [...reply.undone].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const items: BlockedItem[] = byPath.map(([path, mode, bits, failed]) => {
    const what = kindName(mode, bits);
    if (failed !== null) return { kind: 'write', path, why: `could not undo (${failed}): ${what}` };
    return { kind: 'write', path, why: bits === 0 ? `${what}: removed` : `${what}: ${bits === 0o6000 ? 'its bits were' : 'its bit was'} cleared` };
  });
  for (const [path, errno] of reply.kinds.unread) items.push({ kind: 'write', path, why: `could not be checked for setuid, setgid and device files (${errno})` });
  return items;
}

/**
 * Git's surface in every repository of the remote folder `projectDir` (a real path on the
 * remote), and its file kinds. Given the kinds before a command (`kindsBefore`), the same
 * walk undoes what the command made: set-id bits it set are cleared, devices, fifos and
 * sockets it made removed.
 */
export async function snapshotRemoteSurface(connection: SshConnection, python: string, projectDir: string, home: string, kindsBefore?: FileKinds): Promise<RemoteSnapshot> {
  const table = JSON.stringify({ ...GIT_DIR_SURFACE, maxKeptBytes: MAX_KEPT_BYTES });
  const asked = new Map<string, Named>();
  let first: { kinds: FileKinds; undone: BlockedItem[] } | undefined;
  for (let round = 0; ; round++) {
    // Only the first round undoes (and the first round's kinds are the folder's): the further ones walk for what configs name.
    const input = { extras: [...asked.values()], kinds: round === 0 ? (kindsBefore ?? null) : null };
    const reply = (await runPython(connection, python, SNAPSHOT_PY, [projectDir, table], JSON.stringify(input))) as SnapshotReply;
    first ??= { kinds: reply.kinds, undone: kindsBefore ? undoneItems(reply) : [] };
    const surface = surfaceOf(reply);
    const more = namedInside(surface, projectDir, home).filter(([role, p]) => !asked.has(`${role}:${p}`));
    if (more.length === 0 || round >= MAX_INCLUDE_ROUNDS) return { surface, ...first };
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
