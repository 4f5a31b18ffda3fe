/*
 * Output: a human-readable report by default, or with --json one JSON object
 * per repetition (one line each), which the comparison driver reads. Only
 * rank 0 prints; the numbers are already reduced over ranks.
 */
#include "bench.h"

#include "util/plural.h"
#include "util/size.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void fb_str_add(fb_str *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = b->cap - b->len;
        int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? room : 0, fmt, ap);
        va_end(ap);
        if (n < 0)
            return;
        if (b->s && (size_t)n < room) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = b->cap ? b->cap : 256;
        while (cap - b->len <= (size_t)n)
            cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s)
            return;
        b->s = s, b->cap = cap;
    }
}

void fb_str_json(fb_str *b, const char *s)
{
    if (!s) {
        fb_str_add(b, "null");
        return;
    }
    fb_str_add(b, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fb_str_add(b, "\\%c", *p);
        else if (*p == '\n')
            fb_str_add(b, "\\n");
        else if (*p == '\t')
            fb_str_add(b, "\\t");
        else if (*p < 0x20)
            fb_str_add(b, "\\u%04x", *p);
        else
            fb_str_add(b, "%c", *p);
    }
    fb_str_add(b, "\"");
}

/* Options appear once per key (aliases such as -k/--keep share a key). */
static int seen_before(const fb_opt *opts, const fb_opt *o)
{
    for (const fb_opt *p = opts; p < o; p++)
        if (!strcmp(p->key, o->key))
            return 1;
    return 0;
}

void fb_config_json(fb_str *b, const fb_ctx *c, const fb_opt *opts)
{
    fb_str_add(b, "{\"file\":");
    fb_str_json(b, c->path);
    for (const fb_opt *o = opts; o && o->flag; o++) {
        if (seen_before(opts, o))
            continue;
        fb_str_add(b, ",\"%s\":", o->key);
        switch (o->kind) {
        case FB_FLAG: fb_str_add(b, *(int *)o->ptr ? "true" : "false"); break;
        case FB_INT: fb_str_add(b, "%d", *(int *)o->ptr); break;
        case FB_SIZE: fb_str_add(b, "%lld", (long long)*(int64_t *)o->ptr); break;
        case FB_STR: fb_str_json(b, *(const char **)o->ptr); break;
        case FB_CHOICE: fb_str_json(b, o->choices[*(int *)o->ptr]); break;
        }
    }
    fb_str_add(b, "}");
}

void fb_config_text(fb_str *b, const fb_opt *opts)
{
    for (const fb_opt *o = opts; o && o->flag; o++) {
        if (seen_before(opts, o))
            continue;
        char sz[32];
        switch (o->kind) {
        case FB_FLAG:
            if (*(int *)o->ptr)
                fb_str_add(b, " %s", o->key);
            break;
        case FB_INT: fb_str_add(b, " %s=%d", o->key, *(int *)o->ptr); break;
        case FB_SIZE:
            ferry_size_human((double)*(int64_t *)o->ptr, sz, sizeof sz);
            fb_str_add(b, " %s=%s", o->key, sz);
            break;
        case FB_STR:
            if (*(const char **)o->ptr)
                fb_str_add(b, " %s=%s", o->key, *(const char **)o->ptr);
            break;
        case FB_CHOICE: fb_str_add(b, " %s=%s", o->key, o->choices[*(int *)o->ptr]); break;
        }
    }
}

/* The strategy ferry recorded for one kind of call, e.g. "coll_write". */
static void ferry_choice(fb_str *b, const char *rec, const char *kind)
{
    char key[64];
    snprintf(key, sizeof key, "\"%s\":{\"strategy\":\"", kind);
    const char *p = rec ? strstr(rec, key) : NULL;
    if (!p)
        return;
    p += strlen(key);
    const char *q = strchr(p, '"');
    if (q && (q - p != 4 || strncmp(p, "none", 4)))
        fb_str_add(b, " %s=%.*s", kind, (int)(q - p), p);
}

static void json_phase(fb_str *b, const char *name, const double *t, int did)
{
    if (!did)
        fb_str_add(b, "\"%s\":null", name);
    else
        fb_str_add(b, "\"%s\":{\"open\":%.9g,\"io\":%.9g,\"close\":%.9g}", name, t[0], t[1], t[2]);
}

static void json_bw(fb_str *b, const char *name, int did, int64_t bytes, double secs)
{
    if (did && secs > 0)
        fb_str_add(b, "\"%s\":%.6g", name, (double)bytes / secs);
    else
        fb_str_add(b, "\"%s\":null", name);
}

static void report_json(fb_ctx *c, int rep)
{
    const double *t = c->t_max;
    fb_str b = {0};
    fb_str_add(&b, "{\"tool\":\"ferry-bench\",\"schema\":1,\"pattern\":\"%s\",\"label\":", c->pat->name);
    fb_str_json(&b, c->label);
    fb_str_add(&b, ",\"ranks\":%d,\"mpi\":", c->size);
    fb_str_json(&b, c->mpi_version);
    fb_str_add(&b, ",\"ferry\":");
    fb_str_json(&b, c->ferry);
    fb_str_add(&b, ",\"rep\":%d,\"reps\":%d,\"config\":", rep, c->reps);
    fb_config_json(&b, c, c->pat->opts);
    fb_str_add(&b, ",\"bytes\":{\"write\":%lld,\"read\":%lld}", (long long)(c->did_write ? c->bytes_w : 0),
               (long long)(c->did_read ? c->bytes_r : 0));
    fb_str_add(&b, ",\"time\":{\"open\":%.9g,\"write\":%.9g,\"read\":%.9g,\"close\":%.9g}", t[FB_OPEN_W] + t[FB_OPEN_R],
               t[FB_WRITE], t[FB_READ], t[FB_CLOSE_W] + t[FB_CLOSE_R]);
    fb_str_add(&b, ",\"phases\":{");
    json_phase(&b, "write", t + FB_OPEN_W, c->did_write);
    fb_str_add(&b, ",");
    json_phase(&b, "read", t + FB_OPEN_R, c->did_read);
    fb_str_add(&b, "},\"bandwidth\":{");
    json_bw(&b, "write", c->did_write, c->bytes_w, t[FB_OPEN_W] + t[FB_WRITE] + t[FB_CLOSE_W]);
    fb_str_add(&b, ",");
    json_bw(&b, "read", c->did_read, c->bytes_r, t[FB_OPEN_R] + t[FB_READ] + t[FB_CLOSE_R]);
    fb_str_add(&b, "},\"io_bandwidth\":{");
    json_bw(&b, "write", c->did_write, c->bytes_w, t[FB_WRITE]);
    fb_str_add(&b, ",");
    json_bw(&b, "read", c->did_read, c->bytes_r, t[FB_READ]);
    fb_str_add(&b,
               "},\"verify\":{\"ok\":%s,\"bytes_checked\":%lld,\"bad_bytes\":%lld,\"file_bytes_checked\":%lld,"
               "\"file_bad_bytes\":%lld}",
               c->v.bad || c->vf.bad ? "false" : "true", (long long)c->v.checked, (long long)c->v.bad,
               (long long)c->vf.checked, (long long)c->vf.bad);
    if (c->ferry)
        fb_str_add(&b, ",\"ferry_stats\":{\"write\":%s,\"read\":%s}", c->rec_w ? c->rec_w : "null",
                   c->rec_r ? c->rec_r : "null");
    else
        fb_str_add(&b, ",\"ferry_stats\":null");
    fb_str_add(&b, "}\n");
    fwrite(b.s, 1, b.len, stdout);
    fflush(stdout);
    free(b.s);
}

static void text_line(fb_ctx *c, int rep, const char *name, const double *t, int64_t bytes)
{
    char sz[32];
    ferry_size_human((double)bytes, sz, sizeof sz);
    double all = t[0] + t[1] + t[2];
    printf("  %3d  %-5s  %10s  %9.5f  %9.5f  %9.5f  %10.2f  %10.2f\n", rep, name, sz, t[0], t[1], t[2],
           all > 0 ? (double)bytes / all / 1048576.0 : 0.0, t[1] > 0 ? (double)bytes / t[1] / 1048576.0 : 0.0);
    (void)c;
}

static void report_text(fb_ctx *c, int rep)
{
    if (rep == 0) {
        fb_str b = {0};
        fb_config_text(&b, c->pat->opts);
        printf("ferry-bench %s: %d rank%s, %s, %s%s\n  config:%s file=%s\n", c->pat->name, c->size, ferry_s(c->size),
               c->mpi_version,
               c->ferry ? "through " : "native MPI-IO (ferry not loaded)", c->ferry ? c->ferry : "", b.s ? b.s : "",
               c->path);
        printf("  %3s  %-5s  %10s  %9s  %9s  %9s  %10s  %10s\n", "rep", "phase", "bytes", "open s", "io s", "close s",
               "MiB/s", "io MiB/s");
        free(b.s);
    }
    if (c->did_write)
        text_line(c, rep, "write", c->t_max + FB_OPEN_W, c->bytes_w);
    if (c->did_read)
        text_line(c, rep, "read", c->t_max + FB_OPEN_R, c->bytes_r);
    char sz[32];
    ferry_size_human((double)c->v.checked, sz, sizeof sz);
    fb_str f = {0};
    if (c->ferry) {
        ferry_choice(&f, c->rec_w, "coll_write");
        ferry_choice(&f, c->rec_w, "ind_write");
        ferry_choice(&f, c->rec_r, "coll_read");
        ferry_choice(&f, c->rec_r, "ind_read");
    }
    char fsz[32];
    ferry_size_human((double)c->vf.checked, fsz, sizeof fsz);
    if (c->did_read)
        printf("  %3d  verify %s read back: %s%s%s%s%s%s\n", rep, sz, c->v.bad ? "FAILED" : "OK",
               c->vf.checked || c->vf.bad ? ", file checked with pread: " : "",
               c->vf.checked || c->vf.bad ? fsz : "", c->vf.checked || c->vf.bad ? (c->vf.bad ? " FAILED" : " OK") : "",
               f.s ? "; ferry:" : "", f.s ? f.s : "");
    else if (f.s)
        printf("  %3d  ferry:%s\n", rep, f.s);
    free(f.s);
    fflush(stdout);
}

void fb_report(fb_ctx *c, int rep)
{
    if (c->rank != 0)
        return;
    if (c->json)
        report_json(c, rep);
    else
        report_text(c, rep);
}
