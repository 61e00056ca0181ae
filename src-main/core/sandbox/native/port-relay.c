/*
 * port-relay: inside the sandbox's network namespace, 127.0.0.1 ports that lead to Unix sockets
 * outside it (the domain proxy's, forwarded ports), around a command.
 *
 *   port-relay PORT SOCKET [PORT SOCKET ...] -- FILE [ARG...]
 *
 * Listens on every 127.0.0.1:PORT first, then runs FILE (found on PATH as a shell would) as its
 * child with the environment unchanged, passes each connection to its SOCKET both ways, and exits
 * with the child's status (128 + the signal that ended it). What a Node bridge did, without a
 * Node start (tens of milliseconds) before every command that reaches the network. A failure
 * before FILE runs prints what failed and exits 125; FILE not run exits 127. At most MAX_PAIRS
 * connections (fewer where the open-file limit is lower) are relayed at a time: while that many
 * are open, further ones wait in the listen queue until one closes.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#define FAILED 125
#define MAX_LISTENERS 64
#define MAX_PAIRS 512
#define BUFFER 65536

struct side {
    int fd;
    char buf[BUFFER]; /* read from this side, to be written to the other */
    size_t len;
    int eof;          /* this side will send nothing more: 1, then 2 once passed on */
    int hup;          /* this side's peer is gone: polled again only to read what is left */
};
struct pair {
    struct side a, b; /* a: the client inside, b: the socket outside */
};

static int wake[2];
static struct pair *pairs[MAX_PAIRS];
static int open_pairs, max_pairs = MAX_PAIRS;

static void on_child(int sig) {
    (void)sig;
    int saved = errno;
    if (write(wake[1], "c", 1) < 0) { /* the pipe is full: a wake-up is pending already */ }
    errno = saved;
}

static int fail(const char *what, const char *detail) {
    fprintf(stderr, "port-relay: %s %s: %s\n", what, detail, strerror(errno));
    return FAILED;
}

static void close_pair(int i) {
    close(pairs[i]->a.fd);
    close(pairs[i]->b.fd);
    free(pairs[i]);
    pairs[i] = NULL;
    open_pairs--;
}

static void open_pair(int listener, const char *path) {
    int in = accept4(listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (in < 0) return;
    int out = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
    int slot = 0;
    while (slot < MAX_PAIRS && pairs[slot]) slot++;
    struct pair *p = slot < MAX_PAIRS ? calloc(1, sizeof *p) : NULL;
    if (out < 0 || p == NULL || connect(out, (struct sockaddr *)&addr, sizeof addr) < 0) {
        close(in);
        if (out >= 0) close(out);
        free(p);
        return;
    }
    fcntl(out, F_SETFL, fcntl(out, F_GETFL) | O_NONBLOCK);
    p->a.fd = in;
    p->b.fd = out;
    pairs[slot] = p;
    open_pairs++;
}

/* Moves what `from` has to `to`. Returns 0 when the pair is finished or broken. */
static int relay(struct side *from, struct side *to, short from_events) {
    if (!from->eof && from->len == 0 && (from_events & (POLLIN | POLLHUP | POLLERR))) {
        ssize_t n = read(from->fd, from->buf, BUFFER);
        if (n > 0) from->len = (size_t)n;
        else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
            if (n < 0) return 0;
            from->eof = 1;
        }
    }
    if (from->len > 0) {
        ssize_t n = send(to->fd, from->buf, from->len, MSG_NOSIGNAL);
        if (n > 0) {
            memmove(from->buf, from->buf + n, from->len - (size_t)n);
            from->len -= (size_t)n;
        } else if (n < 0 && errno != EAGAIN && errno != EINTR) return 0;
    }
    if (from->eof == 1 && from->len == 0) {
        shutdown(to->fd, SHUT_WR);
        from->eof = 2;
    }
    return 1;
}

/* A hung-up side reports itself on every poll: left out while it has nothing to be read. */
static int polled_fd(const struct side *self) {
    return self->hup && (self->len > 0 || self->eof) ? -1 : self->fd;
}

static short wanted(const struct side *self, const struct side *other) {
    short events = 0;
    if (!self->eof && self->len == 0) events |= POLLIN;
    if (other->len > 0) events |= POLLOUT;
    return events;
}

int main(int argc, char **argv) {
    int listeners[MAX_LISTENERS];
    const char *sockets[MAX_LISTENERS];
    int count = 0, at = 1;
    for (; at + 1 < argc && strcmp(argv[at], "--") != 0; at += 2) {
        if (count == MAX_LISTENERS) { errno = E2BIG; return fail("listen", "(too many ports)"); }
        struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((unsigned short)atoi(argv[at])), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        int on = 1;
        if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) < 0 || bind(fd, (struct sockaddr *)&addr, sizeof addr) < 0 || listen(fd, 128) < 0)
            return fail("listen on 127.0.0.1 port", argv[at]);
        listeners[count] = fd;
        sockets[count++] = argv[at + 1];
    }
    if (at >= argc - 1 || strcmp(argv[at], "--") != 0) {
        fprintf(stderr, "usage: port-relay PORT SOCKET [PORT SOCKET ...] -- FILE [ARG...]\n");
        return FAILED;
    }
    if (pipe2(wake, O_CLOEXEC | O_NONBLOCK) < 0) return fail("pipe", "");
    struct sigaction sa = {.sa_handler = on_child, .sa_flags = SA_RESTART | SA_NOCLDSTOP};
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGCHLD, &sa, NULL) < 0) return fail("sigaction", "SIGCHLD");
    pid_t child = fork();
    if (child < 0) return fail("fork", argv[at + 1]);
    if (child == 0) {
        execvp(argv[at + 1], argv + at + 1);
        fprintf(stderr, "%s: %s\n", argv[at + 1], strerror(errno));
        _exit(127);
    }
    /* Two descriptors a connection, within the relay's own open-file limit (the command keeps its). */
    struct rlimit files;
    if (getrlimit(RLIMIT_NOFILE, &files) == 0) {
        if (files.rlim_cur < files.rlim_max) {
            files.rlim_cur = files.rlim_max;
            setrlimit(RLIMIT_NOFILE, &files);
            getrlimit(RLIMIT_NOFILE, &files);
        }
        rlim_t room = files.rlim_cur > (rlim_t)count + 10 ? (files.rlim_cur - (rlim_t)count - 8) / 2 : 1;
        if (room < (rlim_t)max_pairs) max_pairs = (int)room;
    }
    struct pollfd fds[1 + MAX_LISTENERS + 2 * MAX_PAIRS];
    int owner[2 * MAX_PAIRS];
    for (;;) {
        int n = 0;
        fds[n++] = (struct pollfd){.fd = wake[0], .events = POLLIN};
        for (int i = 0; i < count; i++) fds[n++] = (struct pollfd){.fd = open_pairs < max_pairs ? listeners[i] : -1, .events = POLLIN};
        int first_pair = n;
        for (int i = 0; i < MAX_PAIRS; i++) {
            if (!pairs[i]) continue;
            owner[n - first_pair] = i;
            fds[n++] = (struct pollfd){.fd = polled_fd(&pairs[i]->a), .events = wanted(&pairs[i]->a, &pairs[i]->b)};
            owner[n - first_pair] = i;
            fds[n++] = (struct pollfd){.fd = polled_fd(&pairs[i]->b), .events = wanted(&pairs[i]->b, &pairs[i]->a)};
        }
        if (poll(fds, (nfds_t)n, -1) < 0 && errno != EINTR) return fail("poll", "");
        if (fds[0].revents) {
            char drain[64];
            while (read(wake[0], drain, sizeof drain) > 0) {}
            int status;
            if (waitpid(child, &status, WNOHANG) == child)
                return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
        }
        for (int i = 0; i < count; i++)
            if (fds[1 + i].revents & POLLIN) open_pair(listeners[i], sockets[i]);
        for (int k = first_pair; k < n; k += 2) {
            int i = owner[k - first_pair];
            struct pair *p = pairs[i];
            short ea = fds[k].revents, eb = fds[k + 1].revents;
            p->a.hup |= (ea & (POLLHUP | POLLERR)) != 0;
            p->b.hup |= (eb & (POLLHUP | POLLERR)) != 0;
            /* Done: both ends finished, or one end gone with all it sent passed on. */
            if (!relay(&p->a, &p->b, ea) || !relay(&p->b, &p->a, eb) || ((ea | eb) & POLLNVAL) ||
                (p->a.eof == 2 && p->b.eof == 2) || (p->a.hup && p->a.eof == 2) || (p->b.hup && p->b.eof == 2))
                close_pair(i);
        }
    }
}
