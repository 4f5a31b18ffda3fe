/*
 * Decoupled I/O: the layer's internal contract.
 *
 *   groups     who is a data process, communicators
 *   start      init and finalize
 *   placement  which world ranks serve, and which one serves whom (pure)
 *   client_*   the compute side: file handles, requests, waiting, hand-off
 *   server_*   the data side: the serving loop, sessions, jobs
 *   scan       reads a stream under a view through the strategies and folds
 *              it into an operation's state (both sides use it: -dp 0 runs
 *              the same code locally)
 *   ops_*      the operations; viewwire, errwire: what travels
 *   init_hook  MPI_Init interception, inert unless asked for
 */
#ifndef FERRY_DECOUPLE_DECOUPLE_H
#define FERRY_DECOUPLE_DECOUPLE_H

#include <mpi.h>
#include <stdint.h>

#include "core/file.h"
#include "decouple/ops.h"
#include "ferry.h"

#ifndef FERRY_PUBLIC
#define FERRY_PUBLIC __attribute__((visibility("default")))
#endif

/* ---- settings (config.c) ---- */

typedef struct dc_config {
    int data_procs;       /* FERRY_DATA_PROCS */
    int serve_in_init;    /* FERRY_DECOUPLE_SERVE=init */
    double timeout;       /* FERRY_DECOUPLE_TIMEOUT: silence after which a busy peer counts as dead */
    double heartbeat;     /* how often a busy data process says it is alive */
    int64_t chunk;        /* FERRY_DECOUPLE_CHUNK: bytes a data process reads per step */
    int64_t split;        /* FERRY_DECOUPLE_SPLIT: reads this large are shared by every data process */
    int64_t message;      /* FERRY_DECOUPLE_MESSAGE: written bytes per message */
    int64_t window;       /* FERRY_DECOUPLE_WINDOW: written bytes in flight / queued per process */
    /* called with the world rank on every request a data process takes;
     * NULL but in the test library (config.c: FERRY_DECOUPLE_FAULT) */
    void (*on_request)(int wrank);
} dc_config;
const dc_config *dc_cfg(void);
double dc_now(void);
/* Sleeps a little longer each idle round (up to about a millisecond), so
 * waiting never takes a core from the process doing the work. */
void dc_backoff(int *idle);

/* ---- groups (groups.c) ---- */

typedef struct dc_world {
    int ready;
    int is_data;
    int ndata, ncompute;
    int wrank;
    MPI_Comm local;       /* the program's */
    MPI_Comm inter;       /* the program's; MPI_COMM_NULL without data processes */
    MPI_Comm proto;       /* private: requests, replies, heartbeats */
    MPI_Comm peers;       /* private duplicate of local: shared reads, ferry's own collectives */
    int home;             /* compute: my data process (remote rank) */
    int *home_of;         /* compute local rank -> data local rank */
    int nclients;         /* data: compute processes I serve */
    char *mine;           /* data: by compute rank, 1 if I serve it */
    int whole_nodes;      /* placement took whole nodes */
    int finished;         /* compute: ferry_decouple_finalize ran */
} dc_world;
extern dc_world dc_w;
/* Splits the world by the placement; fills dc_w. */
int dc_groups_build(int wsize, int ndata);

/* ---- placement (placement.c): pure functions of the node map ---- */

/* Marks ndata of the wsize world ranks as data processes (is_data[r] = 1).
 * node_of[r] is r's node (dense, from 0). Whole nodes (the last ones) when
 * every node holds the same number k of ranks and k divides ndata; else
 * spread round-robin over the nodes, each node giving its highest ranks.
 * Returns 1 for whole nodes, 0 for spread. */
int dc_place(int wsize, const int *node_of, int ndata, int *is_data);
/* home[r] for each compute world rank r: the data process (index among data
 * ranks in world order) serving it: one on its own node when there is
 * one, blocks of neighbours otherwise; -1 for data ranks. */
void dc_homes(int wsize, const int *node_of, const int *is_data, int *home);

/* ---- wire (what travels) ---- */

enum { DC_TAG_MSG = 1, DC_TAG_HB = 2, DC_TAG_SUB = 3, DC_TAG_PART = 4, DC_TAG_DONE = 5, DC_TAG_REPLY = 64 };
#define DC_REPLY_TAGS 16384
static inline int dc_reply_tag(int64_t seq) { return DC_TAG_REPLY + (int)(seq % DC_REPLY_TAGS); }

enum { DC_OPEN = 1, DC_VIEW, DC_READ, DC_WRITE, DC_EOF, DC_SYNC, DC_CLOSE, DC_BYE };

/* compute -> its data process, then the payload */
typedef struct dc_msg {
    int32_t kind;
    int32_t amode;
    int64_t seq;          /* the reply's tag */
    int64_t sid;          /* the client's file */
    int64_t pos, bytes;   /* stream bytes */
    int32_t elem, pad;
    int64_t esize;
    dc_opwire op;
    int64_t paylen;
} dc_msg;

/* data process -> compute: then reslen result bytes, then textlen bytes of error text */
typedef struct dc_reply {
    int32_t cls;
    int32_t textlen;
    int64_t bytes;        /* stream bytes read */
    int64_t value;        /* open: initial pointer; eof: end offset in etypes */
    int64_t reslen;
} dc_reply;

/* home -> helper: part of a read; then the path and the view */
typedef struct dc_sub {
    int64_t job;
    int32_t client, amode;
    int64_t sid, viewver;
    int64_t pos, bytes;
    int32_t elem, pad;
    int64_t esize;
    dc_opwire op;
    int64_t pathlen, viewlen;
} dc_sub;

/* helper -> home: then the partial state, then error text */
typedef struct dc_part {
    int64_t job;
    int32_t cls, textlen;
    int64_t bytes;
    int64_t statelen;
} dc_part;

/* ---- views and errors on the wire ---- */

/* Flattens a view for travel; also returns the etype size and the data
 * bytes of one filetype. Local errors only (an MPI error code). */
int dc_view_pack(MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype, const char *datarep, char **blob,
                 int64_t *len, int64_t *esize, int64_t *ftsize);
/* Sets the travelled view on a data process's file, through the core. */
int dc_view_apply(ferry_file *f, const char *blob, int64_t len);

/* The text of an error code, for the wire; returns its length. */
int dc_err_text(int code, char *buf, int cap);
/* An error code of class cls on this side carrying the other side's text. */
int dc_err_remote(int cls, const char *text, int len);

/* ---- scan (scan.c) ---- */

typedef struct dc_scan {
    ferry_file *f;
    const dc_op *op;
    void *state;
    int64_t pos, end;     /* stream bytes still to read */
    int64_t done;
    int finished;
    int code;
    ferry_flat *mem;
} dc_scan;

void dc_scan_begin(dc_scan *s, ferry_file *f, const dc_op *op, void *state, int64_t pos, int64_t bytes);
/* Reads and folds one chunk into buf (at least one element, cap bytes
 * otherwise); returns 1 once the scan is over (s->code says how). */
int dc_scan_step(dc_scan *s, char **buf, int64_t *cap);
void dc_scan_end(dc_scan *s);
/* The file byte offset of stream position pos under f's view. */
int64_t dc_locate(void *f, int64_t pos);

/* ---- compute side (client_*.c) ---- */

#define DC_DFILE_MAGIC 0x44464c45u /* "DFLE" */

struct ferry_dfile_s {
    uint32_t magic;
    MPI_Comm comm;        /* duplicate of the open's */
    int rank, size;
    int64_t sid;
    int amode;
    int64_t fp;           /* individual pointer, etypes */
    int64_t esize;        /* view etype size */
    int64_t ftsize;       /* data bytes of one filetype */
    ferry_file *local;    /* no data processes: the file itself */
    int werr;             /* local writes: first error, reported by sync or close */
    ferry_dfile next_open; /* local files still open, in opening order */
};

/* One request in flight to my data process. */
typedef struct dc_call {
    int64_t seq;
    MPI_Request rreq;
    char *rbuf;
    int64_t rcap;
    int done;
    int code;             /* local error code once done */
    dc_reply rep;
    const char *res;      /* result bytes inside rbuf */
} dc_call;

/* Posts the reply's receive, then sends header and payload. */
int dc_call_start(dc_call *c, dc_msg *m, const void *payload, int64_t paylen, int64_t rescap);
/* Nonblocking: *flag = 1 once the reply is in (or the data process is
 * declared dead, with c->code set). */
int dc_call_test(dc_call *c, int *flag);
int dc_call_wait(dc_call *c);
void dc_call_free(dc_call *c);
/* Hands a message over; buf is owned (freed once sent). Waits while more
 * than the window is in flight. */
int dc_send_owned(char *buf, int64_t len);
/* Every hand-off of this process has left (or the data process is dead). */
int dc_flush_sends(void);
/* 1 once my data process was declared dead. */
int dc_link_dead(void);
/* Nonblocking reads (client_req.c): a generalized request over the call. */
int dc_request_start(dc_call *c, void *result, int64_t rescap, MPI_Request *req);
/* Collects the replies of requests the program freed without waiting
 * (wait: all of them, at finalize). */
void dc_requests_drain(int wait);

/* -dp 0 (local.c): the same operations on the compute process itself. */
int dc_local_read(ferry_dfile d, void *result, int64_t pos, int64_t bytes, const dc_op *op, int64_t *done);
int dc_local_write(ferry_dfile d, const void *buf, MPI_Count count, MPI_Datatype type, const dc_op *op,
                   int64_t pos, int64_t *done);

/* ---- data side (server_*.c) ---- */

/* Serves until every client has said goodbye and the other data processes
 * are done too. */
int dc_serve(void);

#endif
