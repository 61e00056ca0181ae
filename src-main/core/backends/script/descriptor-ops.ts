// The file operations of a `bytes` place (an SSH folder, SPEC §13; script-backend.ts), as one
// python3 program run at the place per call: `python3 -c PROGRAM ROOT OP ARGS…`, answering as the shell scripts of
// posix-scripts.ts do (a status line, then a payload).
//
// Every path is walked from the root's file descriptor one component at a time: each folder
// is opened relative to the one before with O_NOFOLLOW, links are read and followed here
// (never by the kernel) and refused when they lead outside the root, and the file is read,
// written (temp file + rename in the folder checked), listed or removed through those
// descriptors. So what was checked is what is used, however a process on the remote swaps
// folders and links meanwhile (a shell cannot do this: `cd -P`, `[ -L ]` and realpath all
// check a name and then use it again).
//
// Why python3 and no fallback: a POSIX shell has no openat, and perl's core has none either.
// A remote without python3 has its file tools refused with an `Error: ` saying so (the
// probe in script-backend.ts), never served by racy code.
import { shQuote } from '../../text/shell-quote';

export type FileOp = 'read' | 'window' | 'upload' | 'delete' | 'ls' | 'stat' | 'resolve' | 'grep' | 'tree';

const FILE_OPS_PY = String.raw`import errno, os, signal, stat as S, sys

ROOT = sys.argv[1]
OP = sys.argv[2]
ARGS = sys.argv[3:]
OUT = sys.stdout.buffer
DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
RACED = (errno.ELOOP, errno.ENOTDIR, errno.ENOENT)


class Reply(Exception):
    def __init__(self, status, payload=b''):
        Exception.__init__(self, status)
        self.status = status
        self.payload = payload


class Retry(Exception):
    """A component changed kind between the look and the open: walk again."""


class Hangup(Exception):
    pass


def hangup(_signum, _frame):
    raise Hangup()


for _s in (signal.SIGHUP, signal.SIGTERM, signal.SIGINT, signal.SIGPIPE):
    signal.signal(_s, hangup)


def comps(path):
    return [c for c in path.split('/') if c not in ('', '.')]


def real(parts):
    return ROOT.rstrip('/') + '/' + '/'.join(parts) if parts else ROOT


def open_root():
    try:
        return os.open(ROOT, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        raise Reply('noroot')


def open_dir(name, folder):
    try:
        return os.open(name, DIR, dir_fd=folder)
    except OSError as e:
        if e.errno in RACED:
            raise Retry()
        raise Reply('denied')


def resolve(rel, create=False):
    """(folder fd, name, parts, lstat): the target is 'name' in the folder (name None: the
    root itself, the folder then the root's fd); lstat None when it does not exist. With
    'create', missing folders on the way are made."""
    fds = [open_root()]
    parts = []
    todo = comps(rel)
    links = 0
    hops = 0
    while True:
        if not any(x is not None for x in todo):
            # Ended on a folder reached by '..' in a link, or the root.
            if not parts:
                return fds[0], None, [], os.fstat(fds[0])
            return fds[-2], parts[-1], parts[:-1], os.fstat(fds[-1])
        c = todo.pop(0)
        if c is None:
            links -= 1
            continue
        if c == '..':
            if not parts:
                raise Reply('outside')
            parts.pop()
            os.close(fds.pop())
            continue
        last = not any(x is not None for x in todo)
        try:
            st = os.stat(c, dir_fd=fds[-1], follow_symlinks=False)
        except FileNotFoundError:
            if links:
                # A link to nothing: where it would lead is not checked, so it is refused.
                raise Reply('outside')
            if last:
                return fds[-1], c, parts, None
            if not create:
                raise Reply('missing')
            try:
                os.mkdir(c, 0o777, dir_fd=fds[-1])
            except FileExistsError:
                pass
            except OSError:
                raise Reply('denied')
            todo.insert(0, c)
            continue
        except PermissionError:
            raise Reply('denied')
        if S.S_ISLNK(st.st_mode):
            hops += 1
            if hops > 40:
                raise Reply('denied')
            target = os.readlink(c, dir_fd=fds[-1])
            if target.startswith('/'):
                if not (ROOT == '/' or target == ROOT or target.startswith(ROOT + '/')):
                    raise Reply('outside')
                target = target if ROOT == '/' else target[len(ROOT):]
                for fd in fds[1:]:
                    os.close(fd)
                del fds[1:]
                parts = []
            todo[0:0] = comps(target) + [None]
            links += 1
            continue
        if last:
            return fds[-1], c, parts, st
        if not S.S_ISDIR(st.st_mode):
            if create:
                raise Reply('notdir', real(parts + [c]).encode('utf-8', 'surrogateescape'))
            raise Reply('missing')
        fds.append(open_dir(c, fds[-1]))
        parts.append(c)


def birth(fd):
    """Birth time (seconds, nanoseconds) where the file system keeps it (statx), else None."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        buf = ctypes.create_string_buffer(256)
        if libc.statx(fd, b'', 0x1000, 0x800, buf) != 0:
            return None
        raw = buf.raw
        if not int.from_bytes(raw[0:4], 'little') & 0x800:
            return None
        return int.from_bytes(raw[80:88], 'little', signed=True), int.from_bytes(raw[88:92], 'little')
    except Exception:
        return None


def info(st, fd=None):
    """As GNU stat -c '%f %s %i %Y %W %y|%w' gives it (the dates of the times are not read)."""
    ns = st.st_mtime_ns
    b = birth(fd) if fd is not None else None
    return '%x %d %d %d %s x.%09d|%s' % (st.st_mode, st.st_size, st.st_ino, ns // 10**9, '%d' % b[0] if b else '0', ns % 10**9, 'x.%09d' % b[1] if b else '-')


def say(line, payload=b''):
    OUT.write(line.encode('utf-8', 'surrogateescape') + b'\n')
    OUT.write(payload)


def open_target(rel):
    """(fd, fstat) of an existing file or folder; fd None for another kind of file."""
    d, name, parts, st = resolve(rel)
    if st is None:
        raise Reply('missing')
    if name is None:
        return os.dup(d), st
    if not (S.S_ISREG(st.st_mode) or S.S_ISDIR(st.st_mode)):
        return None, st
    try:
        fd = os.open(name, FILE, dir_fd=d)
    except OSError as e:
        if e.errno in RACED:
            raise Retry()
        raise Reply('denied')
    now = os.fstat(fd)
    if S.S_IFMT(now.st_mode) != S.S_IFMT(st.st_mode):
        raise Retry()
    return fd, now


def regular(rel):
    fd, st = open_target(rel)
    if S.S_ISDIR(st.st_mode):
        raise Reply('isdir')
    if fd is None or not S.S_ISREG(st.st_mode):
        raise Reply('notfile')
    return fd, st


def chunks(fd):
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return
        yield chunk


def op_read(rel, whole, most):
    fd, st = regular(rel)
    if most != '-' and st.st_size > int(most):
        raise Reply('toolarge ' + info(st, fd))
    say('ok ' + info(st, fd))
    if st.st_size > int(whole):
        OUT.write(os.read(fd, 8192))
        return
    for chunk in chunks(fd):
        OUT.write(chunk)


def op_window(rel, first, last, cap):
    fd, st = regular(rel)
    first, last, cap = int(first), int(last), int(cap)
    newlines, tail = 0, b''
    for chunk in chunks(fd):
        newlines += chunk.count(b'\n')
        tail = chunk[-1:]
    say('ok ' + info(st, fd))
    say('%d %s' % (newlines, tail.hex()))
    if last < first:
        return
    os.lseek(fd, 0, os.SEEK_SET)
    line, sent, rest = 1, 0, b''
    for chunk in chunks(fd):
        rest += chunk
        while line <= last and sent < cap:
            nl = rest.find(b'\n')
            if nl < 0:
                break
            piece, rest = rest[:nl + 1], rest[nl + 1:]
            if line >= first:
                OUT.write(piece[:cap - sent])
                sent += len(piece)
            line += 1
        if line > last or sent >= cap:
            return
    if rest and first <= line <= last and sent < cap:
        OUT.write(rest[:cap - sent])


def conventions(fd):
    """'x<first 3 bytes> <newlines> <newlines without a CR before them> x<last byte>' (hex)."""
    head, lf, bare, last = b'', 0, 0, b''
    for chunk in chunks(fd):
        if len(head) < 3:
            head = (head + chunk)[:3]
        n = chunk.count(b'\n')
        lf += n
        bare += n - chunk.count(b'\r\n') - (1 if last == b'\r' and chunk[:1] == b'\n' else 0)
        last = chunk[-1:]
    return 'x%s %d %d x%s\n' % (head.hex(), lf, bare, last.hex()), head == b'\xef\xbb\xbf' or (lf > 0 and bare == 0)


def op_upload(rel, want, kind, suffix):
    d, name, parts, st = resolve(rel, create=True)
    if name is None or (st is not None and S.S_ISDIR(st.st_mode)):
        raise Reply('isdir')
    mode = None
    if st is not None:
        if not S.S_ISREG(st.st_mode) and kind == 'text':
            raise Reply('notfile')
        mode = S.S_IMODE(st.st_mode)
        if kind == 'text':
            fd, now = regular(rel)
            facts, differ = conventions(fd)
            if differ:
                while sys.stdin.buffer.read(1 << 20):
                    pass
                say('conventions ' + info(now, fd), facts.encode())
                return
    temp = '.deepdesk-tmp-' + suffix
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666, dir_fd=d)
    except OSError:
        raise Reply('denied')
    done = False
    try:
        if mode is not None:
            try:
                os.fchmod(fd, mode)
            except OSError:
                pass
        got = 0
        while True:
            chunk = sys.stdin.buffer.read(1 << 20)
            if not chunk:
                break
            os.write(fd, chunk)
            got += len(chunk)
        if got != int(want):
            raise Reply('short')
        os.fsync(fd)
        os.close(fd)
        try:
            if S.S_ISDIR(os.stat(name, dir_fd=d, follow_symlinks=False).st_mode):
                raise Reply('isdir')
        except FileNotFoundError:
            pass
        try:
            # Renames over whatever is at the name now, in the folder checked (a link there is replaced, not followed).
            os.rename(temp, name, src_dir_fd=d, dst_dir_fd=d)
        except OSError:
            raise Reply('denied')
        done = True
        say('ok')
    finally:
        if not done:
            try:
                os.unlink(temp, dir_fd=d)
            except OSError:
                pass


def op_delete(parent, name):
    d, pname, parts, st = resolve(parent)
    if st is None or not S.S_ISDIR(st.st_mode):
        raise Reply('missing')
    folder = d if pname is None else open_dir(pname, d)
    try:
        st = os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        raise Reply('missing')
    except OSError:
        raise Reply('denied')
    try:
        if S.S_ISDIR(st.st_mode):
            os.rmdir(name, dir_fd=folder)
        else:
            os.unlink(name, dir_fd=folder)
    except OSError as e:
        raise Reply('notempty' if e.errno in (errno.ENOTEMPTY, errno.EEXIST) else 'denied')
    say('ok')


KINDS = ((S.S_ISREG, 'f'), (S.S_ISDIR, 'd'), (S.S_ISLNK, 'l'), (S.S_ISFIFO, 'p'), (S.S_ISSOCK, 's'), (S.S_ISCHR, 'c'), (S.S_ISBLK, 'b'))


def entry(st):
    """As find -printf '%y\\0%s\\0%T@\\0'."""
    kind = next((k for test, k in KINDS if test(st.st_mode)), 'f')
    ns = st.st_mtime_ns
    return ('%s\0%d\0%d.%09d\0' % (kind, st.st_size, ns // 10**9, ns % 10**9)).encode()


def op_ls(rel):
    d, name, parts, st = resolve(rel)
    if st is None:
        raise Reply('missing')
    if not S.S_ISDIR(st.st_mode):
        say('file ' + info(st))
        return
    fd = os.dup(d) if name is None else open_dir(name, d)
    try:
        names = os.listdir(fd)
    except OSError:
        raise Reply('denied')
    here = '/'.join(parts + ([name] if name else []))
    body = []
    for n in names:
        try:
            st = os.stat(n, dir_fd=fd, follow_symlinks=False)
        except OSError:
            continue
        if S.S_ISLNK(st.st_mode):
            # What a link inside leads to; a link that leads outside (or nowhere) is itself.
            try:
                target = resolve(here + '/' + n)[3]
                if target is not None:
                    st = target
            except (Reply, Retry, OSError):
                pass
        body.append(entry(st) + n.encode('utf-8', 'surrogateescape') + b'\0')
    say('ok', b''.join(body))


def op_stat(rel):
    st = resolve(rel)[3]
    if st is None:
        raise Reply('missing')
    say('ok ' + info(st))


def op_resolve(rel):
    d, name, parts, st = resolve(rel)
    path = real(parts + ([name] if name else [])).encode('utf-8', 'surrogateescape')
    say('new' if st is None else 'ok ' + info(st), path)


def op_grep(pattern, hits, most):
    """stdin: NUL-separated real paths. For each file inside the root that holds the pattern,
    is no larger than 'most' and has no NUL in its first 8 KiB: 'path\\0size\\0' + grep -n's lines."""
    say('ok')
    needle = os.fsencode(pattern)
    hits, most = int(hits), int(most)
    prefix = '' if ROOT == '/' else ROOT
    for path in sys.stdin.buffer.read().split(b'\0'):
        p = os.fsdecode(path)
        if not p.startswith(prefix + '/'):
            continue
        fd = None
        for _ in range(20):
            try:
                fd, st = regular(p[len(prefix):])
                break
            except Retry:
                continue
            except (Reply, OSError):
                break
        if fd is None or st.st_size > most:
            continue
        data = b''.join(chunks(fd))
        if needle not in data or b'\0' in data[:8192]:
            continue
        pieces = data.split(b'\n')
        if data.endswith(b'\n'):
            pieces.pop()
        lines = [b'%d:%s\n' % (n, line) for n, line in enumerate(pieces, 1) if needle in line][:hits]
        found = b''.join(lines)
        OUT.write(path + b'\0' + str(len(found)).encode() + b'\0' + found)


def gitignore(folder, path):
    """A .gitignore as 'path\0size\0' + its bytes ('-' for the size when it is no readable regular file)."""
    name = path.encode('utf-8', 'surrogateescape')
    try:
        fd = os.open('.gitignore', FILE, dir_fd=folder)
        try:
            data = b''.join(chunks(fd)) if S.S_ISREG(os.fstat(fd).st_mode) else None
        finally:
            os.close(fd)
    except OSError:
        data = None
    if data is None:
        return name + b'\0-\0'
    return name + b'\0' + str(len(data)).encode() + b'\0' + data


def op_tree(rel):
    """As find lists a folder for grep and glob (remote-search.ts parseTree): 'ok' + the
    folder's real path, 'A' records for the folders from the root to its parent (whether
    they hold .git, their .gitignore), every entry below it (not inside .git), 'E', then
    each .gitignore below it. 'file' + the real path for a regular file, 'special' else."""
    d, name, parts, st = resolve(rel)
    if st is None:
        raise Reply('missing')
    here = parts + ([name] if name else [])
    if not S.S_ISDIR(st.st_mode):
        if S.S_ISREG(st.st_mode):
            say('file', real(here).encode('utf-8', 'surrogateescape'))
        else:
            say('special')
        return
    top = os.dup(d) if name is None else open_dir(name, d)
    out = [real(here).encode('utf-8', 'surrogateescape') + b'\0']
    if here:
        folder = open_root()
        for i in range(len(here)):
            at = real(here[:i])
            try:
                os.stat('.git', dir_fd=folder, follow_symlinks=False)
                has_git = b'1'
            except OSError:
                has_git = b'0'
            out.append(b'A\0' + at.encode('utf-8', 'surrogateescape') + b'\0' + has_git + b'\0')
            try:
                is_file = S.S_ISREG(os.stat('.gitignore', dir_fd=folder, follow_symlinks=False).st_mode)
            except OSError:
                is_file = False
            out.append(gitignore(folder, at.rstrip('/') + '/.gitignore') if is_file else b'-\0-\0')
            folder = open_dir(here[i], folder)
    ignores = []
    pending = [(top, '')]
    while pending:
        folder, prefix = pending.pop()
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for n in names:
            try:
                lst = os.stat(n, dir_fd=folder, follow_symlinks=False)
            except OSError:
                continue
            path = prefix + n
            out.append(entry(lst) + path.encode('utf-8', 'surrogateescape') + b'\0')
            if n == '.git':
                continue
            if n == '.gitignore' and not S.S_ISDIR(lst.st_mode):
                ignores.append(gitignore(folder, real(here + path.split('/'))))
            if S.S_ISDIR(lst.st_mode):
                try:
                    pending.append((os.open(n, DIR, dir_fd=folder), path + '/'))
                except OSError:
                    pass
    say('ok', b''.join(out) + b'E\0' + b''.join(ignores))


OPS = {'tree': op_tree, 'read': op_read, 'window': op_window, 'upload': op_upload, 'delete': op_delete, 'ls': op_ls, 'stat': op_stat, 'resolve': op_resolve, 'grep': op_grep}


def main():
    for _ in range(50):
        try:
            OPS[OP](*ARGS)
            return
        except Retry:
            continue
        except Reply as r:
            say(r.status, r.payload)
            return
        except Hangup:
            sys.exit(1)
        except PermissionError:
            say('denied')
            return
    say('denied')


main()
OUT.flush()
`;

/**
 * A script body (run after script-replies.ts PRELUDE, which sets ROOT, and with PY the remote's python3) for one operation on
 * the body's arguments:
 * - `read REL WHOLE MOST`, `window REL FIRST LAST CAP`, `upload REL BYTES KIND SUFFIX` (the
 *   content on stdin), `delete PARENT NAME`, `ls REL`, `stat REL`, `resolve REL`: as READ,
 *   WINDOW, UPLOAD, DELETE, LS, STAT and RESOLVE were;
 * - `grep PATTERN HITS MOST`: as GREP_LINES did (the real paths on stdin);
 * - `tree REL`: as TREE did (script-search.ts parseTree reads it).
 */
export function fileOp(op: FileOp): string {
  return `exec "$PY" -I -S -c ${shQuote(FILE_OPS_PY)} "$ROOT" ${op} "$@"\n`;
}
