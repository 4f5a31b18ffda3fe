/*
 * One data call between its start on the caller's thread (arguments,
 * datatypes, data representation, position, file pointers) and its transfer
 * through the strategies, which may run on the file's worker.
 */
#ifndef FERRY_CORE_OP_H
#define FERRY_CORE_OP_H

#include "core/call.h"
#include "core/datarep_io.h"
#include "core/strategies.h"

/* A started call: what runs between the start and the transfer's end. io.c
 * starts it; io.c or the file's worker (async.c) finishes it. */
typedef struct ferry_started {
    ferry_call c;
    ferry_xfer x;
    ferry_stage stage;
    int code;
    int64_t start; /* etypes */
} ferry_started;

/* Moves the bytes of a started call, stores the call's outcome, frees op. */
void ferry_op_run(ferry_file *f, ferry_started *op, int *code, int64_t *done);
/* Frees a started call that will not run. */
void ferry_op_drop(ferry_started *op);
/* Everything up to the transfer (shared and ordered pointers move here). */
void ferry_op_start(ferry_file *f, const ferry_call *c, int local_err, ferry_started *op);
/* The transfer and its accounting; stores the call's outcome. */
void ferry_op_finish(ferry_file *f, ferry_started *op, int *code, int64_t *done);

#endif
