/* failmalloc — allocation and I/O fault injection for whole program runs,
 * in the manner of SQLite's malloc tests.  An LD_PRELOAD interposer for the
 * plain (non-sanitizer) build: ASan replaces malloc itself and refuses a
 * second interposer.
 *
 * Allocation failures.  With FAILMALLOC_N=N, the first N allocation calls
 * (malloc, calloc, realloc, posix_memalign, aligned_alloc, memalign,
 * valloc, strdup, strndup) succeed and every later one fails with ENOMEM
 * (FAILMALLOC_ONCE=1: only call N+1 fails, the rest succeed again).
 * Counting starts when the program's main() is entered — the dynamic
 * loader and the libraries' constructors allocate a different amount from
 * one build to the next, and a failure there is not the program's to
 * handle — and only in a process whose name is FAILMALLOC_PROG (default
 * "crfpipe", also matching libtool's "lt-crfpipe"), so that the shell of a
 * libtool wrapper script is never starved.  realloc(p, 0) and free are
 * never failed.  FAILMALLOC_STATS=FILE appends the number of allocation
 * calls counted to FILE at exit, so that a test knows how far to walk N;
 * FAILMALLOC_TRACE=1 prints a backtrace of the first failed call.
 *
 * I/O failures.  With FAILIO=enospc, eio or close-eio, every file the
 * program creates with mkstemp/mkostemp (how crfpipe creates each output
 * file and model before renaming it into place) refuses its writes with
 * ENOSPC or EIO, or its close(2) with EIO.  The errors are raised in the
 * kernel by a seccomp filter on that one descriptor, so that they reach
 * stdio's and libxml2's internal writes, which no symbol interposition can
 * see.  Short writes are produced without this library, by a file size
 * limit (ulimit -f, with SIGXFSZ ignored).
 *
 * Why not leak checking here: deciding what is leaked needs reachability
 * (what LeakSanitizer and valgrind do); counting live blocks would flag the
 * caches ICU, libxml2 and libltdl keep until exit.  `make fault` runs the
 * walk under valgrind --leak-check=full instead, this library preloaded
 * beneath it (valgrind replaces the __libc_* functions called here).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* glibc's own entry points: calling them, rather than dlsym(RTLD_NEXT,
 * "malloc"), avoids the bootstrap problem of dlsym itself allocating. */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);

static int armed;           /* main() entered in the target program */
static long long fail_at = -1;  /* index of the first failing call */
static int once;
static long long ncalls;    /* calls counted since arming */
static const char *stats_file;
static int trace;           /* FAILMALLOC_TRACE=1: backtrace of the first failure */
static int io_mode;         /* 0 none, else the errno and where (below) */
enum { IO_NONE, IO_ENOSPC, IO_EIO, IO_CLOSE_EIO };

static int should_fail(void)
{
    if (!armed)
        return 0;
    long long i = __atomic_fetch_add(&ncalls, 1, __ATOMIC_RELAXED);
    if (fail_at < 0 || i < fail_at || (once && i > fail_at))
        return 0;
    if (trace && i == fail_at) {
        /* Where the walk's failure lands, for a reproducer; backtrace()
         * was warmed up at arming so it does not allocate now. */
        void *frames[32];
        int n = backtrace(frames, 32);
        static const char head[] = "failmalloc: failing this allocation:\n";
        (void)!write(2, head, sizeof head - 1);
        backtrace_symbols_fd(frames, n, 2);
    }
    errno = ENOMEM;
    return 1;
}

void *malloc(size_t n)
{
    return should_fail() ? NULL : __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
    return should_fail() ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
    /* realloc(p, 0) frees; failing it would leak the block by the very
     * contract the caller relies on. */
    if (p && n == 0)
        return __libc_realloc(p, n);
    return should_fail() ? NULL : __libc_realloc(p, n);
}

void free(void *p)
{
    __libc_free(p);
}

int posix_memalign(void **out, size_t align, size_t n)
{
    if (align < sizeof(void *) || (align & (align - 1)))
        return EINVAL;
    if (should_fail())
        return ENOMEM;
    void *p = __libc_memalign(align, n);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

void *aligned_alloc(size_t align, size_t n)
{
    return should_fail() ? NULL : __libc_memalign(align, n);
}

void *memalign(size_t align, size_t n)
{
    return should_fail() ? NULL : __libc_memalign(align, n);
}

void *valloc(size_t n)
{
    return should_fail() ? NULL : __libc_memalign((size_t)sysconf(_SC_PAGESIZE), n);
}

/* glibc's strdup calls its internal malloc, which interposition does not
 * reach: they are counted here as the allocations they are. */
char *strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    return d ? memcpy(d, s, n) : NULL;
}

char *strndup(const char *s, size_t max)
{
    size_t n = strnlen(s, max);
    char *d = malloc(n + 1);
    if (!d)
        return NULL;
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

/* --- I/O faults -------------------------------------------------------- */

/* Make the kernel fail, on descriptor fd only, the write family (or close)
 * with `err`.  Filters stack, so each new temporary file adds its own. */
static void fail_fd(int fd)
{
    int err = io_mode == IO_ENOSPC ? ENOSPC : EIO;
#define ALLOW BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
#define NR_IS(nr, skip_false) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, (skip_false))
    struct sock_filter writes[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
        ALLOW,
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        /* writes: write, writev, pwrite64, pwritev, pwritev2 */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_write, 5, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_writev, 4, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_pwrite64, 3, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_pwritev, 2, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_pwritev2, 1, 0),
        ALLOW,
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)fd, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (uint32_t)err),
        ALLOW,
    };
    struct sock_filter closes[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
        ALLOW,
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        NR_IS(SYS_close, 3),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)fd, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EIO),
        ALLOW,
    };
#undef ALLOW
#undef NR_IS
    struct sock_fprog prog;
    if (io_mode == IO_CLOSE_EIO)
        prog = (struct sock_fprog){sizeof closes / sizeof *closes, closes};
    else
        prog = (struct sock_fprog){sizeof writes / sizeof *writes, writes};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0) {
        /* The test cannot do what it claims: say so loudly and stop (the
         * test script skips when it sees this status). */
        static const char msg[] = "failmalloc: cannot install the seccomp filter\n";
        (void)!write(2, msg, sizeof msg - 1);
        _exit(77);
    }
}

typedef int (*mkstemp_fn)(char *);
typedef int (*mkostemp_fn)(char *, int);

int mkstemp(char *tmpl)
{
    static mkstemp_fn real;
    if (!real)
        real = (mkstemp_fn)dlsym(RTLD_NEXT, "mkstemp");
    int fd = real(tmpl);
    if (fd >= 0 && armed && io_mode)
        fail_fd(fd);
    return fd;
}

int mkostemp(char *tmpl, int flags)
{
    static mkostemp_fn real;
    if (!real)
        real = (mkostemp_fn)dlsym(RTLD_NEXT, "mkostemp");
    int fd = real(tmpl, flags);
    if (fd >= 0 && armed && io_mode)
        fail_fd(fd);
    return fd;
}

/* --- arming at main() ---------------------------------------------------- */

static void report(void)
{
    long long n = __atomic_load_n(&ncalls, __ATOMIC_RELAXED);
    armed = 0;
    if (!stats_file)
        return;
    char line[64];
    int len = snprintf(line, sizeof line, "%lld\n", n);
    int fd = open(stats_file, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
        (void)!write(fd, line, (size_t)len);
        close(fd);
    }
}

typedef int (*main_fn)(int, char **, char **);
typedef int (*start_fn)(main_fn, int, char **, void (*)(void), void (*)(void),
                        void (*)(void), void *);
static main_fn real_main;

static int is_target(const char *argv0)
{
    const char *want = getenv("FAILMALLOC_PROG");
    if (!want || !*want)
        want = "crfpipe";
    const char *base = strrchr(argv0, '/');
    base = base ? base + 1 : argv0;
    if (strncmp(base, "lt-", 3) == 0)
        base += 3;
    return strcmp(base, want) == 0;
}

static int wrapped_main(int argc, char **argv, char **envp)
{
    if (argc > 0 && is_target(argv[0])) {
        const char *n = getenv("FAILMALLOC_N");
        const char *io = getenv("FAILIO");
        const char *o = getenv("FAILMALLOC_ONCE");
        if (n && *n)
            fail_at = strtoll(n, NULL, 10);
        once = o && *o == '1';
        stats_file = getenv("FAILMALLOC_STATS");
        trace = getenv("FAILMALLOC_TRACE") != NULL;
        if (trace) {
            void *frame[1];
            backtrace(frame, 1);
        }
        if (io && !strcmp(io, "enospc"))
            io_mode = IO_ENOSPC;
        else if (io && !strcmp(io, "eio"))
            io_mode = IO_EIO;
        else if (io && !strcmp(io, "close-eio"))
            io_mode = IO_CLOSE_EIO;
        /* Registered before the program's own atexit handlers, so it runs
         * after them: their allocations are counted too. */
        atexit(report);
        armed = 1;
    }
    return real_main(argc, argv, envp);
}

/* The C runtime calls this with the address of main(); substituting our
 * wrapper is how we learn that main() is starting. */
int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void),
                      void (*fini)(void), void (*rtld_fini)(void), void *stack_end)
{
    start_fn real = (start_fn)dlsym(RTLD_NEXT, "__libc_start_main");
    real_main = main;
    return real(wrapped_main, argc, argv, init, fini, rtld_fini, stack_end);
}
