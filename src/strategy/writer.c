#include "strategy/writer.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct ferry_writer {
    ferry_file *f;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    ferry_wrun *runs;
    int64_t n, cap;
    int pending;     /* a job is queued or running */
    int quit;
    int err;         /* first failure, sticky */
    int64_t calls, bytes;
    double seconds;
};

int ferry_write_runs(ferry_file *f, const ferry_wrun *runs, int64_t n, int64_t *calls, int64_t *bytes)
{
    for (int64_t i = 0; i < n; i++) {
        int64_t w = f->fd.drv->pwrite(&f->fd, runs[i].buf, runs[i].len, runs[i].off);
        if (w < 0)
            return (int)w;
        (*calls)++;
        *bytes += w;
    }
    return 0;
}

static void *writer_main(void *arg)
{
    ferry_writer *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->pending && !w->quit)
            pthread_cond_wait(&w->cv, &w->mu);
        if (!w->pending && w->quit)
            break;
        pthread_mutex_unlock(&w->mu);
        double t0 = ferry_now();
        int64_t calls = 0, bytes = 0;
        int rc = w->err ? 0 : ferry_write_runs(w->f, w->runs, w->n, &calls, &bytes);
        double dt = ferry_now() - t0;
        pthread_mutex_lock(&w->mu);
        if (rc && !w->err)
            w->err = rc;
        w->calls += calls;
        w->bytes += bytes;
        w->seconds += dt;
        w->pending = 0;
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

ferry_writer *ferry_writer_start(ferry_file *f)
{
    ferry_writer *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->f = f;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    if (pthread_create(&w->thread, NULL, writer_main, w) != 0) {
        pthread_mutex_destroy(&w->mu);
        pthread_cond_destroy(&w->cv);
        free(w);
        return NULL;
    }
    return w;
}

int ferry_writer_wait(ferry_writer *w)
{
    pthread_mutex_lock(&w->mu);
    while (w->pending)
        pthread_cond_wait(&w->cv, &w->mu);
    int err = w->err;
    pthread_mutex_unlock(&w->mu);
    return err;
}

int ferry_writer_submit(ferry_writer *w, const ferry_wrun *runs, int64_t n)
{
    int err = ferry_writer_wait(w);
    if (err)
        return err;
    if (n > w->cap) {
        ferry_wrun *nr = realloc(w->runs, (size_t)n * sizeof *nr);
        if (!nr)
            return -12; /* ENOMEM */
        w->runs = nr;
        w->cap = n;
    }
    memcpy(w->runs, runs, (size_t)n * sizeof *runs);
    pthread_mutex_lock(&w->mu);
    w->n = n;
    w->pending = 1;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    return 0;
}

int ferry_writer_stop(ferry_writer *w)
{
    int err = ferry_writer_wait(w);
    pthread_mutex_lock(&w->mu);
    w->quit = 1;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
    w->f->stats.sys_writes += w->calls;
    w->f->stats.sys_write_bytes += w->bytes;
    w->f->stats.phase[FERRY_PHASE_WRITE] += w->seconds;
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
    free(w->runs);
    free(w);
    return err;
}
