/*
 * Output: a human-readable report by default, or with --json one JSON object
 * per repetition (one line each), which the comparison driver reads. Only
 * rank 0 prints; the numbers are already reduced over ranks.
 */
#include "bench.h"

#include "util/plural.h"
#include "util/size.h"

#include <jansson.h>

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

/* Options appear once per key (aliases such as -k/--keep share a key). */
static int seen_before(const fb_opt *opts, const fb_opt *o)
{
    for (const fb_opt *p = opts; p < o; p++)
        if (!strcmp(p->key, o->key))
            return 1;
    return 0;
}

static json_t *str_or_null(const char *s) { return s ? json_string(s) : json_null(); }

/* Every option of the pattern by its key, with its value. */
static json_t *config_json(const fb_ctx *c, const fb_opt *opts)
{
    json_t *o = json_object();
    json_object_set_new(o, "file", str_or_null(c->path));
    for (const fb_opt *p = opts; p && p->flag; p++) {
        if (seen_before(opts, p))
            continue;
        json_t *v = NULL;
        switch (p->kind) {
        case FB_FLAG: v = json_boolean(*(int *)p->ptr); break;
        case FB_INT: v = json_integer(*(int *)p->ptr); break;
        case FB_SIZE: v = json_integer(*(int64_t *)p->ptr); break;
        case FB_STR: v = str_or_null(*(const char **)p->ptr); break;
        case FB_CHOICE: v = json_string(p->choices[*(int *)p->ptr]); break;
        }
        json_object_set_new(o, p->key, v ? v : json_null());
    }
    return o;
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
            ferry_size_format((double)*(int64_t *)o->ptr, FERRY_SIZE_SHORT, sz, sizeof sz);
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
static void ferry_choice(fb_str *b, const json_t *rec, const char *kind)
{
    const char *st = json_string_value(json_object_get(json_object_get(json_object_get(rec, "strategies"), kind),
                                                       "strategy"));
    if (st && strcmp(st, "none"))
        fb_str_add(b, " %s=%s", kind, st);
}

static json_t *phase_json(const double *t, int did)
{
    if (!did)
        return json_null();
    return json_pack("{s:f,s:f,s:f}", "open", t[0], "io", t[1], "close", t[2]);
}

static json_t *rate(int did, int64_t bytes, double secs)
{
    return did && secs > 0 ? json_real((double)bytes / secs) : json_null();
}

static json_t *record_or_null(const json_t *r) { return r ? json_deep_copy(r) : json_null(); }

/* One line: the JSON library writes it (numbers to 9 digits). */
static void report_json(fb_ctx *c, int rep)
{
    const double *t = c->t_max;
    json_t *o = json_object();
    json_object_set_new(o, "tool", json_string("ferry-bench"));
    json_object_set_new(o, "schema", json_integer(1));
    json_object_set_new(o, "pattern", json_string(c->pat->name));
    json_object_set_new(o, "label", str_or_null(c->label));
    json_object_set_new(o, "ranks", json_integer(c->size));
    json_object_set_new(o, "mpi", json_string(c->mpi_version));
    json_object_set_new(o, "ferry", str_or_null(c->ferry));
    json_object_set_new(o, "rep", json_integer(rep));
    json_object_set_new(o, "reps", json_integer(c->reps));
    json_object_set_new(o, "config", config_json(c, c->pat->opts));
    json_object_set_new(o, "bytes", json_pack("{s:I,s:I}", "write", (json_int_t)(c->did_write ? c->bytes_w : 0),
                                              "read", (json_int_t)(c->did_read ? c->bytes_r : 0)));
    json_object_set_new(o, "time", json_pack("{s:f,s:f,s:f,s:f}", "open", t[FB_OPEN_W] + t[FB_OPEN_R], "write",
                                             t[FB_WRITE], "read", t[FB_READ], "close", t[FB_CLOSE_W] + t[FB_CLOSE_R]));
    json_object_set_new(o, "phases", json_pack("{s:o,s:o}", "write", phase_json(t + FB_OPEN_W, c->did_write), "read",
                                               phase_json(t + FB_OPEN_R, c->did_read)));
    json_object_set_new(o, "bandwidth",
                        json_pack("{s:o,s:o}", "write",
                                  rate(c->did_write, c->bytes_w, t[FB_OPEN_W] + t[FB_WRITE] + t[FB_CLOSE_W]), "read",
                                  rate(c->did_read, c->bytes_r, t[FB_OPEN_R] + t[FB_READ] + t[FB_CLOSE_R])));
    json_object_set_new(o, "io_bandwidth", json_pack("{s:o,s:o}", "write", rate(c->did_write, c->bytes_w, t[FB_WRITE]),
                                                     "read", rate(c->did_read, c->bytes_r, t[FB_READ])));
    json_object_set_new(o, "verify",
                        json_pack("{s:b,s:I,s:I,s:I,s:I}", "ok", !(c->v.bad || c->vf.bad), "bytes_checked",
                                  (json_int_t)c->v.checked, "bad_bytes", (json_int_t)c->v.bad, "file_bytes_checked",
                                  (json_int_t)c->vf.checked, "file_bad_bytes", (json_int_t)c->vf.bad));
    json_object_set_new(o, "ferry_stats",
                        c->ferry ? json_pack("{s:o,s:o}", "write", record_or_null(c->rec_w), "read",
                                             record_or_null(c->rec_r))
                                 : json_null());
    char *text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9));
    if (text)
        printf("%s\n", text);
    fflush(stdout);
    free(text);
    json_decref(o);
}

static void text_line(fb_ctx *c, int rep, const char *name, const double *t, int64_t bytes)
{
    char sz[32];
    ferry_size_format((double)bytes, FERRY_SIZE_SHORT, sz, sizeof sz);
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
    if (c->pat->no_data) /* calls that move no bytes: no bandwidth */
        printf("  %3d  %-5s  %10s  %9.5f  %9.5f  %9.5f  %10s  %10s\n", rep, c->pat->no_data, "-", c->t_max[FB_OPEN_W],
               c->t_max[FB_WRITE], c->t_max[FB_CLOSE_W], "-", "-");
    else if (c->did_write)
        text_line(c, rep, "write", c->t_max + FB_OPEN_W, c->bytes_w);
    if (c->did_read && !c->pat->no_data)
        text_line(c, rep, "read", c->t_max + FB_OPEN_R, c->bytes_r);
    char sz[32];
    ferry_size_format((double)c->v.checked, FERRY_SIZE_SHORT, sz, sizeof sz);
    fb_str f = {0};
    if (c->ferry) {
        ferry_choice(&f, c->rec_w, "coll_write");
        ferry_choice(&f, c->rec_w, "ind_write");
        ferry_choice(&f, c->rec_r, "coll_read");
        ferry_choice(&f, c->rec_r, "ind_read");
    }
    char fsz[32];
    ferry_size_format((double)c->vf.checked, FERRY_SIZE_SHORT, fsz, sizeof fsz);
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
