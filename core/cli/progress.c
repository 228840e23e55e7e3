/* crfpipe CLI — the progress bar of long tagging and conversion runs.
 *
 * Shown only on a terminal (stderr is a tty, TERM is not "dumb", no
 * --quiet), or when CRFPIPE_PROGRESS=always; CRFPIPE_PROGRESS=never hides
 * it.  Piped or redirected, stderr gets nothing from here.
 *
 * Two sources feed it: the input's file offset (bytes read, read with
 * lseek on the descriptor, which is safe while another thread reads the
 * FILE), and the host's document observer (tokens done).  A thread redraws
 * the line five times a second, so the bar moves while a large document is
 * still being read or tagged; log lines (warnings) clear the bar first so
 * they never share its line.
 */
#include "config.h"
#include "cli.h"
#include "progress.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct cli_progress {
    crfp_host *host;
    const char *what;
    int fd;              /* the input's descriptor, -1 when unknown */
    off_t total;         /* its size, 0 when unknown (a pipe) */
    atomic_size_t tokens;
    struct timespec t0;
    pthread_t thread;
    pthread_mutex_t mu;  /* guards stderr and the fields below */
    pthread_cond_t cv;
    int stop;
    int drawn;           /* the bar is on the screen */
    crfp_log_fn prev_fn; /* the sink the bar steps aside for */
    void *prev_ud;
    long iv_ms;          /* redraw interval; the first draw waits twice as long */
};

static double since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) * 1e-9;
}

/* "12.3 MiB", "512 KiB", "900 B" */
static void fmt_bytes(double b, char *buf, size_t len)
{
    if (b >= 1024.0 * 1024 * 1024)
        snprintf(buf, len, "%.2f GiB", b / (1024.0 * 1024 * 1024));
    else if (b >= 1024.0 * 1024)
        snprintf(buf, len, "%.1f MiB", b / (1024.0 * 1024));
    else if (b >= 1024)
        snprintf(buf, len, "%.0f KiB", b / 1024);
    else
        snprintf(buf, len, "%.0f B", b);
}

static void fmt_count(double v, char *buf, size_t len)
{
    if (v >= 1e6)
        snprintf(buf, len, "%.2fM", v / 1e6);
    else if (v >= 1e4)
        snprintf(buf, len, "%.1fk", v / 1e3);
    else
        snprintf(buf, len, "%.0f", v);
}

static void fmt_time(double s, char *buf, size_t len)
{
    long t = s < 0 ? 0 : (long)(s + 0.5);
    if (t >= 3600)
        snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
}

static int term_width(void)
{
    struct winsize ws;
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
        return ws.ws_col;
    return 80;
}

/* Compose and print the line; mu held. */
static void draw(cli_progress *p)
{
    double el = since(&p->t0);
    double tok = (double)atomic_load(&p->tokens);
    off_t pos = p->fd >= 0 ? lseek(p->fd, 0, SEEK_CUR) : -1;
    char rate[32], bytes[32], all[32], eta[32], tail[160], left[64];
    fmt_count(el > 0 ? tok / el : 0, rate, sizeof rate);
    int width = term_width();
    snprintf(left, sizeof left, "%s ", p->what);
    if (p->total > 0 && pos >= 0) {
        double frac = (double)pos / (double)p->total;
        if (frac > 1)
            frac = 1;
        fmt_bytes((double)pos, bytes, sizeof bytes);
        fmt_bytes((double)p->total, all, sizeof all);
        if (frac > 0.001 && el > 2.5 * (double)p->iv_ms / 1000.0)
            fmt_time(el * (1 - frac) / frac, eta, sizeof eta);
        else
            snprintf(eta, sizeof eta, "-:--");
        snprintf(tail, sizeof tail, " %3d%%  %s / %s  %s tok/s  ETA %s", (int)(frac * 100), bytes,
                 all, rate, eta);
        int barw = width - 1 - (int)strlen(left) - (int)strlen(tail) - 2;
        if (barw > 40)
            barw = 40;
        char bar[48];
        if (barw >= 5) {
            int fill = (int)(frac * barw + 0.5);
            for (int i = 0; i < barw; i++)
                bar[i] = i < fill ? '#' : '.';
            bar[barw] = '\0';
            fprintf(stderr, "\r%s[%s]%s\033[K", left, bar, tail);
        } else {
            fprintf(stderr, "\r%s%s\033[K", left, tail);
        }
    } else {
        char count[32], tm[32];
        fmt_count(tok, count, sizeof count);
        fmt_time(el, tm, sizeof tm);
        if (pos >= 0)
            fmt_bytes((double)pos, bytes, sizeof bytes);
        snprintf(tail, sizeof tail, "%s%s%s tokens  %s tok/s  %s", pos >= 0 ? bytes : "",
                 pos >= 0 ? "  " : "", count, rate, tm);
        fprintf(stderr, "\r%s%.*s\033[K", left, width - 2 - (int)strlen(left), tail);
    }
    fflush(stderr);
    p->drawn = 1;
}

static void clear(cli_progress *p)
{
    if (p->drawn) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        p->drawn = 0;
    }
}

static void *ticker(void *arg)
{
    cli_progress *p = arg;
    pthread_mutex_lock(&p->mu);
    /* short runs finish before the first draw and leave no trace */
    int first = 1;
    while (!p->stop) {
        struct timespec dl;
        clock_gettime(CLOCK_MONOTONIC, &dl);
        long ms = first ? 2 * p->iv_ms : p->iv_ms;
        dl.tv_nsec += ms * 1000000L;
        dl.tv_sec += dl.tv_nsec / 1000000000L;
        dl.tv_nsec %= 1000000000L;
        pthread_cond_timedwait(&p->cv, &p->mu, &dl);
        if (!p->stop)
            draw(p);
        first = 0;
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

static void on_doc(void *ud, const crfp_doc *doc)
{
    cli_progress *p = ud;
    atomic_fetch_add(&p->tokens, crfp_doc_count_tokens(doc, NULL));
}

/* The host's log sink while the bar is up: the bar steps aside for the
 * message and comes back at the next tick. */
static void on_log(void *ud, crfp_log_level level, const char *msg)
{
    cli_progress *p = ud;
    pthread_mutex_lock(&p->mu);
    clear(p);
    if (p->prev_fn)
        p->prev_fn(p->prev_ud, level, msg);
    pthread_mutex_unlock(&p->mu);
}

static int wanted(crfp_host *host)
{
    const char *env = getenv("CRFPIPE_PROGRESS");
    if (env && strcmp(env, "always") == 0)
        return 1;
    if (env && strcmp(env, "never") == 0)
        return 0;
    const char *term = getenv("TERM");
    return isatty(STDERR_FILENO) && !(term && strcmp(term, "dumb") == 0) &&
           crfp_host_verbosity(host) >= CRFP_LOG_PROGRESS;
}

cli_progress *cli_progress_start(crfp_host *host, FILE *in, const char *what)
{
    if (!wanted(host))
        return NULL;
    cli_progress *p = calloc(1, sizeof *p);
    if (!p)
        return NULL; /* a missing bar is no reason to fail the run */
    p->host = host;
    p->what = what;
    p->fd = in ? fileno(in) : -1;
    /* CRFPIPE_PROGRESS_MS sets the redraw interval (default 200 ms): tests
     * use a short one so that a short run still draws, whatever the speed
     * of the machine. */
    const char *ivs = getenv("CRFPIPE_PROGRESS_MS");
    long iv = ivs ? strtol(ivs, NULL, 10) : 0;
    p->iv_ms = iv >= 1 && iv <= 10000 ? iv : 200;
    struct stat sb;
    if (p->fd >= 0 && fstat(p->fd, &sb) == 0 && S_ISREG(sb.st_mode))
        p->total = sb.st_size;
    else if (p->fd >= 0 && lseek(p->fd, 0, SEEK_CUR) < 0)
        p->fd = -1; /* a pipe: no offset to show */
    atomic_init(&p->tokens, 0);
    clock_gettime(CLOCK_MONOTONIC, &p->t0);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, &ca);
    pthread_condattr_destroy(&ca);
    crfp_host_get_log(host, &p->prev_fn, &p->prev_ud);
    if (pthread_create(&p->thread, NULL, ticker, p) != 0) {
        pthread_mutex_destroy(&p->mu);
        pthread_cond_destroy(&p->cv);
        free(p);
        return NULL;
    }
    crfp_host_set_log(host, on_log, p);
    crfp_host_set_doc_observer(host, on_doc, p);
    return p;
}

void cli_progress_doc(cli_progress *p, const crfp_doc *doc)
{
    if (p)
        on_doc(p, doc);
}

void cli_progress_end(cli_progress *p)
{
    if (!p)
        return;
    crfp_host_set_doc_observer(p->host, NULL, NULL);
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
    pthread_join(p->thread, NULL);
    clear(p);
    crfp_host_set_log(p->host, p->prev_fn, p->prev_ud);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    free(p);
}
