/*
 * One launch: the build's mpiexec runs ferry-bench with --json, with
 * libferry preloaded and the candidate in FERRY_HINTS (or natively), under
 * a time limit. Standard output is parsed line by line; standard error goes
 * to a temporary file whose tail explains a failure.
 */
#define _GNU_SOURCE /* setenv, mkstemp, kill */
#include "tune.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

const char *tune_metric_name(tune_metric m)
{
    return m == TUNE_METRIC_WRITE ? "write" : m == TUNE_METRIC_READ ? "read" : "total";
}

double tune_wall(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int tune_auto_reps(double cost, double wall)
{
    /* as many repetitions per launch as fit in the launch's own cost
     * (start-up, file creation): half of each launch then measures */
    double per = cost > 0 ? cost : 1;
    int n = (int)((wall - per) / per + 0.5);
    return n < 3 ? 3 : n > 10 ? 10 : n;
}

typedef struct {
    char *v[TUNE_MAX_ARGS * 2 + 32];
    int n;
    char own[8][TUNE_HINT_LEN + 64]; /* storage for "K=V" words */
    int nown;
} argv_t;

static void add(argv_t *a, const char *s)
{
    if (a->n < (int)(sizeof a->v / sizeof a->v[0]) - 1)
        a->v[a->n++] = (char *)s;
    a->v[a->n] = NULL;
}

/* An environment variable for every rank: -x K=V (Open MPI) or -genv K V (MPICH). */
static void add_env(argv_t *a, const tune_run_cfg *c, const char *k, const char *v)
{
    if (a->nown >= 8)
        return;
    if (!strcmp(c->flavor, "mpich")) {
        add(a, "-genv");
        add(a, k);
        snprintf(a->own[a->nown], sizeof a->own[0], "%s", v);
        add(a, a->own[a->nown++]);
    } else {
        add(a, "-x");
        snprintf(a->own[a->nown], sizeof a->own[0], "%s=%s", k, v);
        add(a, a->own[a->nown++]);
    }
}

/* extra flags: split on blanks into a static-lifetime copy */
static void add_extra(argv_t *a, char *copy)
{
    for (char *t = strtok(copy, " \t"); t; t = strtok(NULL, " \t"))
        add(a, t);
}

static void build_argv(const tune_run_cfg *c, int preload, const char *hints, argv_t *a, char *extra, char *nbuf,
                       char *ibuf)
{
    memset(a, 0, sizeof *a);
    add(a, c->mpiexec);
    add_extra(a, extra);
    add(a, "-n");
    snprintf(nbuf, 16, "%d", c->ranks);
    add(a, nbuf);
    if (preload) {
        add_env(a, c, "LD_PRELOAD", c->libferry);
        if (hints && *hints)
            add_env(a, c, "FERRY_HINTS", hints);
    }
    add(a, c->bench);
    add(a, c->pattern);
    for (int i = 0; i < c->nargs; i++)
        add(a, c->args[i]);
    add(a, "-i");
    snprintf(ibuf, 16, "%d", c->reps + c->warmup);
    add(a, ibuf);
    add(a, "--json");
}

/* Quotes s for a POSIX shell when it needs it. */
static void shell_word(char *buf, size_t len, size_t *at, const char *s)
{
    int plain = *s != '\0';
    for (const char *p = s; *p; p++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=+,@%", *p))
            plain = 0;
    if (*at >= len)
        return;
    if (plain) {
        *at += (size_t)snprintf(buf + *at, len - *at, "%s%s", *at ? " " : "", s);
        return;
    }
    *at += (size_t)snprintf(buf + *at, len - *at, "%s'", *at ? " " : "");
    for (const char *p = s; *p && *at < len; p++)
        *at += (size_t)snprintf(buf + *at, len - *at, *p == '\'' ? "'\\''" : "%c", *p);
    if (*at < len)
        *at += (size_t)snprintf(buf + *at, len - *at, "'");
}

void tune_command(const tune_run_cfg *c, int preload, const char *hints, const char *hints_file, char *buf,
                  size_t len)
{
    argv_t a;
    char extra[1024], n[16], i[16];
    snprintf(extra, sizeof extra, "%s", c->mpiexec_extra ? c->mpiexec_extra : "");
    build_argv(c, preload, hints_file ? c->fixed : hints, &a, extra, n, i);
    size_t at = 0;
    buf[0] = '\0';
    if (preload && hints_file) {
        /* FERRY_HINTS_FILE is read by rank 0 only, so the launcher need not pass it */
        char e[1200];
        snprintf(e, sizeof e, "FERRY_HINTS_FILE=%s", hints_file);
        shell_word(buf, len, &at, e);
    }
    for (int k = 0; k < a.n; k++)
        shell_word(buf, len, &at, a.v[k]);
}

/* The seconds one repetition record counts under the metric; -1 if absent. */
static double rep_cost(const json_t *rec, tune_metric m, double *w, double *r)
{
    const json_t *pw = tj_at(rec, "phases.write"), *pr = tj_at(rec, "phases.read");
    *w = *r = -1;
    if (json_is_object(pw))
        *w = tj_num(pw, "open", 0) + tj_num(pw, "io", 0) + tj_num(pw, "close", 0);
    if (json_is_object(pr))
        *r = tj_num(pr, "open", 0) + tj_num(pr, "io", 0) + tj_num(pr, "close", 0);
    if (m == TUNE_METRIC_WRITE)
        return *w;
    if (m == TUNE_METRIC_READ)
        return *r;
    if (*w < 0 && *r < 0)
        return -1;
    return (*w > 0 ? *w : 0) + (*r > 0 ? *r : 0);
}

static double median(double *x, int n)
{
    tune_summary t;
    tune_summarize(x, n, &t);
    return t.median;
}

/* The last lines of the stderr file, for a failure message. */
static void tail(const char *path, char *out, size_t len)
{
    size_t n = 0;
    char *text = tj_read_file(path, &n);
    if (!text)
        return;
    const char *p = text + n;
    int lines = 0;
    while (p > text) {
        if (p[-1] == '\n' && p != text + n && ++lines == 6)
            break;
        p--;
    }
    snprintf(out, len, "%s", p);
    free(text);
}

/* ferry-bench's own message in the stderr file (its lines start with its
 * name: "ferry-bench ior: unknown option ..."), which MPI's text about the
 * job's end follows; 1 if there is one. */
static int bench_said(const char *path, char *out, size_t len)
{
    char *text = tj_read_file(path, NULL);
    if (!text)
        return 0;
    int found = 0;
    for (char *line = text, *nl; line && *line && !found; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        if (!strncmp(line, "ferry-bench", 11) && (line[11] == ':' || line[11] == ' ')) {
            snprintf(out, len, "%s", line);
            found = 1;
        }
    }
    free(text);
    return found;
}

/* ferry warns on rank 0 when it ignores a hint: a candidate the tuner got wrong */
static int ignored_hint(const char *path, char *why, size_t len)
{
    char *text = tj_read_file(path, NULL);
    if (!text)
        return 0;
    /* "ferry: warning: FILE: FERRY_HINTS...: hint ... ignored: ..." */
    char *p = strstr(text, ": FERRY_HINTS");
    while (p && p > text && p[-1] != '\n')
        p--;
    if (p && strstr(p, "ignored")) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        snprintf(why, len, "%s", p);
        free(text);
        return 1;
    }
    free(text);
    return 0;
}

static volatile pid_t running; /* the launch in progress, for tune_run_interrupt */

void tune_run_interrupt(void)
{
    pid_t p = running;
    if (p > 0)
        kill(-p, SIGKILL);
}

int tune_run(const tune_run_cfg *c, int preload, const char *hints, double timeout, tune_run_out *out)
{
    memset(out, 0, sizeof *out);
    char all_hints[TUNE_HINT_LEN * 2];
    snprintf(all_hints, sizeof all_hints, "%s", hints ? hints : "");
    argv_t a;
    char extra[1024], nb[16], ib[16];
    snprintf(extra, sizeof extra, "%s", c->mpiexec_extra ? c->mpiexec_extra : "");
    build_argv(c, preload, all_hints, &a, extra, nb, ib);

    char errpath[4200];
    snprintf(errpath, sizeof errpath, "%s/ferry-tune-stderr.XXXXXX", c->tmpdir);
    int efd = mkstemp(errpath);
    if (efd < 0) {
        snprintf(out->err, sizeof out->err, "mkstemp(%.900s): %s", errpath, strerror(errno));
        return -1;
    }
    int pfd[2];
    if (pipe(pfd) != 0) {
        snprintf(out->err, sizeof out->err, "pipe: %s", strerror(errno));
        close(efd);
        unlink(errpath);
        return -1;
    }
    if (c->verbose) {
        char cmd[8192];
        tune_command(c, preload, all_hints, NULL, cmd, sizeof cmd);
        fprintf(stderr, "ferry-tune: running %s\n", cmd);
    }
    double t0 = tune_wall();
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(out->err, sizeof out->err, "fork: %s", strerror(errno));
        close(pfd[0]), close(pfd[1]), close(efd);
        unlink(errpath);
        return -1;
    }
    if (pid == 0) {
        setpgid(0, 0); /* its own group: a timeout kills mpiexec and every rank */
        dup2(pfd[1], STDOUT_FILENO);
        dup2(efd, STDERR_FILENO);
        close(pfd[0]), close(pfd[1]), close(efd);
        execvp(a.v[0], a.v);
        fprintf(stderr, "exec %s: %s\n", a.v[0], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid);
    running = pid;
    close(pfd[1]);
    close(efd);

    size_t cap = 1 << 16, len = 0;
    char *text = malloc(cap);
    int timed_out = 0;
    while (text) {
        double left = t0 + timeout - tune_wall();
        if (left <= 0) {
            timed_out = 1;
            break;
        }
        struct pollfd p = {pfd[0], POLLIN, 0};
        int rc = poll(&p, 1, (int)(left * 1000 > 1000 ? 1000 : left * 1000 + 1));
        if (rc < 0 && errno != EINTR)
            break;
        if (rc <= 0)
            continue;
        if (len + 4096 > cap) {
            char *t = realloc(text, cap * 2);
            if (!t)
                break;
            text = t, cap *= 2;
        }
        ssize_t got = read(pfd[0], text + len, cap - len - 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        len += (size_t)got;
    }
    close(pfd[0]);
    int status = 0;
    if (timed_out) {
        kill(-pid, SIGTERM);
        for (int i = 0; i < 20 && waitpid(pid, &status, WNOHANG) == 0; i++)
            usleep(50000);
        kill(-pid, SIGKILL);
    }
    waitpid(pid, &status, 0);
    running = 0;
    out->wall = tune_wall() - t0;
    if (!text) {
        unlink(errpath);
        snprintf(out->err, sizeof out->err, "out of memory");
        return -1;
    }
    text[len] = '\0';

    double costs[256], ws[256], rs[256];
    int n = 0, bad_verify = 0;
    for (char *line = text, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        if (line[0] != '{')
            continue;
        char perr[128];
        json_t *rec = tj_parse(line, strlen(line), perr, sizeof perr);
        if (!rec)
            continue;
        if (strcmp(tj_str(rec, "tool", ""), "ferry-bench")) {
            json_decref(rec);
            continue;
        }
        if (!tj_num(rec, "verify.ok", 1))
            bad_verify = 1;
        double w, r, cost = rep_cost(rec, c->metric, &w, &r);
        if ((int)tj_num(rec, "rep", 0) >= c->warmup && cost >= 0 && n < 256) {
            costs[n] = cost, ws[n] = w, rs[n] = r;
            n++;
            out->bytes_w = tj_num(rec, "bytes.write", 0);
            out->bytes_r = tj_num(rec, "bytes.read", 0);
        }
        if (out->have_last)
            json_decref(out->last);
        out->last = rec;
        out->have_last = 1;
    }
    free(text);
    char why[512] = "";
    int ignored = preload && ignored_hint(errpath, why, sizeof why);
    if (timed_out)
        snprintf(out->err, sizeof out->err, "timed out after %.0f s", timeout);
    else if (bad_verify)
        snprintf(out->err, sizeof out->err, "ferry-bench read back wrong data (verification failed)");
    else if (ignored)
        snprintf(out->err, sizeof out->err, "ferry ignored a hint: %s", why);
    else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || n == 0) {
        char t[700] = "";
        int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        if (n == 0 && bench_said(errpath, t, sizeof t)) {
            /* its own words, not the launcher's about how the job ended */
            out->refused = code == 2; /* ferry-bench's usage errors */
            snprintf(out->err, sizeof out->err, "%s (exit status %d)", t, code);
        } else {
            tail(errpath, t, sizeof t);
            snprintf(out->err, sizeof out->err, "%s (exit status %d)%s%s",
                     n == 0 ? "no repetition record" : "the run failed", code, *t ? ":\n" : "", t);
        }
    } else {
        out->ok = 1;
        out->reps = n;
        out->cost = median(costs, n);
        out->write_s = median(ws, n);
        out->read_s = median(rs, n);
    }
    unlink(errpath);
    return out->ok ? 0 : -1;
}

void tune_run_out_free(tune_run_out *o)
{
    if (o->have_last)
        json_decref(o->last);
    o->have_last = 0;
}
