/*
 * The data side, shared by the serving loop (server.c), the jobs it runs
 * (server_jobs.c), the open files it keeps (server_session.c) and what it
 * sends (server_out.c).
 *
 * Each client has a queue of jobs in arrival order, which keeps one
 * client's writes, reads and closes in the order it issued them. The loop
 * runs one step (a chunk) of the next ready queue head in turn, so clients
 * share the process fairly and every step ends back in the loop, where
 * messages are accepted and heartbeats go out.
 */
#ifndef FERRY_DECOUPLE_SERVER_H
#define FERRY_DECOUPLE_SERVER_H

#include "decouple/decouple.h"

typedef struct dc_session {
    struct dc_session *next;
    int client;
    int64_t sid;
    ferry_file *f;
    char *path;
    int amode;
    char *view;           /* the last view set, as it travelled (for helpers) */
    int64_t viewlen, viewver;
    int werr;             /* first write error since the last sync or close */
    int dirty;            /* written since the last sync */
    int shadow;           /* a helper's read-only copy of another process's session */
    int inuse;            /* shadow: parts reading through it */
    double used;
} dc_session;

typedef struct dc_job {
    struct dc_job *next;      /* in its queue */
    struct dc_job *wnext;     /* in the list of jobs waiting for parts */
    int src;                  /* client (proto rank) or home (peers rank) */
    int peer;                 /* a part of another data process's read */
    MPI_Request rreq;         /* the message still arriving */
    char *msg;
    int64_t len;
    int started, scanning;
    int64_t id;
    dc_op op;
    void *state;              /* the result so far */
    void *mine;               /* a shared read: my own part, combined at the end */
    dc_scan scan;
    dc_session *sess;
    int parts_out;
    char *waiting_on;         /* per data process: a part is out there */
    int64_t bytes;
    int code;
} dc_job;

typedef struct dc_queue {
    dc_job *head, *tail;
    double last_hb;
    int gone;                 /* the client said goodbye */
} dc_queue;

typedef struct dc_server {
    int me;                   /* my rank among data processes */
    dc_queue *clients;        /* by compute rank */
    dc_queue *helps;          /* parts asked by other data processes, by their rank */
    int nq, cursor;
    int clients_left;
    int64_t queued;           /* bytes of client messages taken in, not yet done */
    dc_job *waiting;          /* shared reads whose parts are still out */
    int64_t next_id;
    double *peer_last;        /* last word from each data process */
    char *peer_done, *peer_dead;
    int done_sent;
    dc_session *sessions;     /* mine and shadows */
    int nshadows;
    char *buf;                /* scratch for reads */
    int64_t cap;
    struct dc_out {
        MPI_Request r;
        char *buf;
    } *outs;
    int nouts, capouts;
} dc_server;

/* server_out.c: sends take buf (malloc'd); the loop reaps finished ones (1
 * if any finished). A signal is a message without data. */
void dc_srv_send(dc_server *S, MPI_Comm comm, int dest, int tag, char *buf, int64_t len);
void dc_srv_signal(dc_server *S, MPI_Comm comm, int dest, int tag);
void dc_srv_reply(dc_server *S, int client, int64_t seq, int code, int64_t bytes, int64_t value,
                  const void *res, int64_t reslen);
int dc_srv_reap(dc_server *S);

/* server_jobs.c: 1 when the job is over (pop it), 0 when it has more to do
 * or waits for parts. */
int dc_job_step(dc_server *S, dc_job *j);
int dc_job_ready(const dc_job *j);
void dc_job_free(dc_job *j);
/* A part came back from data process `from`. */
void dc_job_part(dc_server *S, int from, const char *msg, int64_t len);
/* Parts held by data processes that went silent fail their jobs. */
void dc_jobs_check_peers(dc_server *S, double now);

/* server_session.c */
dc_session *dc_session_find(dc_server *S, int client, int64_t sid, int shadow);
int dc_session_open(dc_server *S, int client, int64_t sid, const char *path, int amode, MPI_Info info, int shadow,
                    dc_session **out);
/* Closes and forgets; returns the first of pending write error and close error. */
int dc_session_close(dc_server *S, dc_session *s);
void dc_session_close_client(dc_server *S, int client);
void dc_session_close_all(dc_server *S);

#endif
