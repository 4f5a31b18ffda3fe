/*
 * Forwarding internals shared by the sender side (forward.c), the plan
 * (forward_plan.c) and the serving thread (forward_serve.c).
 *
 * Every forwarded file whose ranks form the same group (and whose plan hints
 * agree) shares one channel: one private communicator, one plan and one
 * serving thread per rank that serves, whatever the number of open files.
 * Files are told apart by an id agreed at open.
 *
 * Wire format, all int64. A request message (TAG_REQ) is a run of records:
 *   [type, owner, npieces, nbytes, file id] [foff, len] x npieces [data: nbytes padded to 8, writes only]
 * owner is the rank (in the channel's communicator) whose data it is; a
 * collector concatenates its node mates' records unchanged. A control
 * message (tag FWD_TAG_CTRL0 + file id: each file's owner waits on its own)
 * goes from a forwarder to an owner:
 *   [type, error code, bytes] [data: bytes, read replies only]
 * Records of one owner travel one path in order, so the forwarder sees them
 * in the order they were issued (MPI's non-overtaking rule on each hop).
 */
#ifndef FERRY_STRATEGY_FORWARD_INTERNAL_H
#define FERRY_STRATEGY_FORWARD_INTERNAL_H

#include "strategy/forward.h"

#include <pthread.h>
#include <stdatomic.h>

enum { FWD_TAG_REQ = 1, FWD_TAG_CTRL0 = 2 };
#define FWD_MAX_FILES 30000 /* files open at once per channel: control tags stay below 32767 */
enum { FWD_WRITE = 1, FWD_READ = 2, FWD_FLUSH = 3 };
enum { FWD_ERR = 1, FWD_ACK = 2, FWD_REPLY = 3 };
#define FWD_HDR 5  /* int64 words of a record header */
/* A record's data is padded to 8 bytes, so the next record's header that a
 * collector appends stays aligned. */
static inline int64_t fwd_pad8(int64_t n) { return (n + 7) & ~(int64_t)7; }
#define FWD_CTRL 3 /* int64 words of a control header */

/* Sends in flight and the buffers they own. */
typedef struct fwd_send {
    MPI_Request req;
    char *buf;
    int64_t len;
} fwd_send;

typedef struct fwd_queue {
    fwd_send *v;
    int n, cap;
    int64_t bytes;
} fwd_queue;

struct fwd_chan;

typedef struct ferry_fwd {
    ferry_file *f;
    struct fwd_chan *chan; /* the shared route (a file's copy: comm, plan) */
    int fid;               /* the file's id on its channel */
    MPI_Comm comm;         /* the channel's private communicator, same ranks as f->comm */
    int me, size;
    int *fwd_of;           /* rank -> its forwarder */
    int first_hop;         /* where this rank's records go: its collector or forwarder */
    int nforwarders, ncollect;
    int use_machine;       /* the ranks agreed on FERRY_TOPOLOGY (core/switches.h) */
    int write_on, read_on;
    char why[FERRY_REASON_LEN];
    /* sender side (the caller's thread) */
    fwd_queue out;
    int dirty;             /* records sent since the last flush */
    int err;               /* first error not yet reported to the program */
    /* serving side (the channel's route only) */
    int serves;
    pthread_t thread;
    atomic_int stop;
    /* a file's system calls made by its forwarder (under the channel's lock) */
    int64_t sys_writes, sys_write_bytes, sys_reads, sys_read_bytes;
} ferry_fwd;

/* One per group of ranks and plan hints: its route's comm, plan and thread
 * serve every forwarded file of that group. */
typedef struct fwd_chan {
    ferry_fwd route;       /* comm, me, size, fwd_of, first_hop, serves, thread, why */
    MPI_Group group;
    int collectors;
    ferry_fwd_assign assign;
    pthread_mutex_t lock;  /* files[] and the files' counters */
    ferry_fwd *files[FWD_MAX_FILES];
    int nopen;
    struct fwd_chan *next;
} fwd_chan;

/* The file with id fid on the channel (NULL if none); lock held. */
static inline ferry_fwd *fwd_chan_file(fwd_chan *c, int64_t fid)
{
    return fid >= 0 && fid < FWD_MAX_FILES ? c->files[fid] : NULL;
}

/* Collective over f->comm: who forwards for whom and who collects; fills
 * fwd_of, first_hop, serves and why. MPI_SUCCESS, or an error on every rank. */
int ferry_fwd_plan(ferry_fwd *w, int collectors, ferry_fwd_assign assign);

/* Serving: the thread's body runs serve_once until told to stop; at close
 * the caller's thread takes over (see forward.c: shut). */
typedef struct relay {
    char *buf;
    int64_t len, cap;
} relay;
typedef struct fwd_server {
    ferry_fwd *w;
    fwd_queue q;  /* relays, acknowledgements and replies in flight */
    relay *rel;   /* per destination rank: records to relay */
} fwd_server;
void *ferry_fwd_serve(void *arg);
int ferry_fwd_server_init(fwd_server *s, ferry_fwd *w);
/* Takes what has arrived (up to a burst), executes or relays it; returns the
 * bytes taken (0: nothing arrived). */
int64_t ferry_fwd_serve_once(fwd_server *s);
void ferry_fwd_server_done(fwd_server *s);
/* Sleeps a little longer each idle round (20 us to 1 ms). */
void ferry_fwd_pause(int *idle);

/* Queue of sends: push a started send (takes buf), reap finished ones,
 * wait for all. */
int ferry_fwd_queue_push(fwd_queue *q, MPI_Request req, char *buf, int64_t len);
void ferry_fwd_queue_reap(fwd_queue *q);
void ferry_fwd_queue_wait(fwd_queue *q);
/* Waits for the oldest send and frees it. */
void ferry_fwd_queue_trim(fwd_queue *q);

#endif
