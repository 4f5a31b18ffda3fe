/*
 * Operation handles: built-in ones are fixed numbers, parameterised ones
 * live in a per-process table (their parameters travel with each request),
 * and user operations are numbered in registration order, which is what
 * every process agrees on.
 */
#include "core/errors.h"
#include "decouple/decouple.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PARAM_BASE (1 << 16)
#define USER_BASE (1 << 24)
#define MAX_USER 1024
#define MAX_PARAM (1 << 16)

static dc_user users[MAX_USER];
static int nusers;

static dc_opwire *params;     /* slot -> wire form; kind DC_K_NULL marks a free slot */
static int nparams, capparams;

static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

const dc_user *dc_user_get(int index)
{
    return index >= 0 && index < nusers ? &users[index] : NULL;
}

FERRY_PUBLIC int ferry_op_register(const char *name, ferry_op_fn *fn, ferry_op_combine_fn *combine,
                                   int state_size, ferry_op *op)
{
    if (!name || !*name || !fn || !op)
        return ferry_err(MPI_ERR_ARG, "ferry_op_register needs a name, a function and a handle");
    if (state_size < 0 || state_size > (1 << 28))
        return ferry_err(MPI_ERR_ARG, "operation state must be 0 to 2^28 bytes");
    if (nusers >= MAX_USER)
        return ferry_err(MPI_ERR_OTHER, "too many user operations");
    dc_user *u = &users[nusers];
    strncpy(u->name, name, sizeof u->name - 1);
    u->hash = name_hash(name);
    u->fn = fn;
    u->combine = combine;
    u->state_size = state_size;
    *op = USER_BASE + nusers++;
    return MPI_SUCCESS;
}

static int param_new(const dc_opwire *w, ferry_op *op)
{
    int slot = -1;
    for (int i = 0; i < nparams; i++)
        if (params[i].kind == DC_K_NULL) {
            slot = i;
            break;
        }
    if (slot < 0) {
        if (nparams == MAX_PARAM)
            return ferry_err(MPI_ERR_OTHER, "too many parameterised operations (free some with ferry_op_free)");
        if (nparams == capparams) {
            int nc = capparams ? 2 * capparams : 16;
            dc_opwire *p = realloc(params, (size_t)nc * sizeof *p);
            if (!p)
                return ferry_err(MPI_ERR_NO_MEM, "out of memory creating an operation");
            params = p;
            capparams = nc;
        }
        slot = nparams++;
    }
    params[slot] = *w;
    *op = PARAM_BASE + slot;
    return MPI_SUCCESS;
}

FERRY_PUBLIC int ferry_op_histogram(int bins, double lo, double hi, ferry_op *op)
{
    if (!op)
        return ferry_err(MPI_ERR_ARG, "operation handle is NULL");
    if (bins < 1 || bins > (1 << 24) || !(lo < hi) || !isfinite(lo) || !isfinite(hi))
        return ferry_err(MPI_ERR_ARG, "histogram needs 1 to 2^24 bins and a finite range lo < hi");
    dc_opwire w = {.kind = DC_K_HIST, .ival = bins, .a = lo, .b = hi};
    return param_new(&w, op);
}

static int lookup_new(int threshold, double lo, double hi, MPI_Count cap, ferry_op *op)
{
    if (!op)
        return ferry_err(MPI_ERR_ARG, "operation handle is NULL");
    if (cap < 0 || cap > ((MPI_Count)1 << 26))
        return ferry_err(MPI_ERR_ARG, "lookup keeps 0 to 2^26 records");
    dc_opwire w = {.kind = DC_K_LOOKUP, .ival = threshold, .cap = (int64_t)cap, .a = lo, .b = hi};
    return param_new(&w, op);
}

FERRY_PUBLIC int ferry_op_lookup(double lo, double hi, MPI_Count max_matches, ferry_op *op)
{
    return lookup_new(0, lo, hi, max_matches, op);
}

FERRY_PUBLIC int ferry_op_threshold(double t, MPI_Count max_matches, ferry_op *op)
{
    return lookup_new(1, t, INFINITY, max_matches, op);
}

FERRY_PUBLIC int ferry_op_topk(int k, ferry_op *op)
{
    if (!op)
        return ferry_err(MPI_ERR_ARG, "operation handle is NULL");
    if (k < 1 || k > (1 << 24))
        return ferry_err(MPI_ERR_ARG, "top-k needs 1 <= k <= 2^24");
    dc_opwire w = {.kind = DC_K_TOPK, .ival = k};
    return param_new(&w, op);
}

FERRY_PUBLIC int ferry_op_free(ferry_op *op)
{
    if (!op)
        return ferry_err(MPI_ERR_ARG, "operation handle is NULL");
    int slot = *op - PARAM_BASE;
    if (*op >= PARAM_BASE && *op < USER_BASE) {
        if (slot >= nparams || params[slot].kind == DC_K_NULL)
            return ferry_err(MPI_ERR_OP, "operation was already freed");
        params[slot].kind = DC_K_NULL;
    }
    /* built-in and user operations live for the whole run */
    *op = FERRY_OP_NULL;
    return MPI_SUCCESS;
}

int dc_op_wire(ferry_op op, dc_opwire *w)
{
    memset(w, 0, sizeof *w);
    if (op >= FERRY_OP_NULL && op <= FERRY_OP_VARIANCE) {
        w->kind = op; /* the public numbers are the wire kinds */
        return MPI_SUCCESS;
    }
    if (op >= PARAM_BASE && op < USER_BASE) {
        int slot = op - PARAM_BASE;
        if (slot < nparams && params[slot].kind != DC_K_NULL) {
            *w = params[slot];
            return MPI_SUCCESS;
        }
    } else if (op >= USER_BASE && op - USER_BASE < nusers) {
        w->kind = DC_K_USER;
        w->user = op - USER_BASE;
        w->namehash = users[w->user].hash;
        return MPI_SUCCESS;
    }
    return MPI_ERR_OP;
}

int dc_elem_of(MPI_Datatype t, dc_elem *elem, int64_t *esize)
{
    if (t == MPI_DATATYPE_NULL)
        return MPI_ERR_TYPE;
    MPI_Count sz = 0;
    if (MPI_Type_size_x(t, &sz) != MPI_SUCCESS)
        return MPI_ERR_TYPE;
    *esize = sz;
    if (t == MPI_INT32_T || (t == MPI_INT && sz == 4))
        *elem = DC_ELEM_I32;
    else if (t == MPI_INT64_T || t == MPI_LONG_LONG_INT || t == MPI_LONG_LONG || (t == MPI_LONG && sz == 8))
        *elem = DC_ELEM_I64;
    else if (t == MPI_FLOAT && sz == 4)
        *elem = DC_ELEM_F32;
    else if (t == MPI_DOUBLE && sz == 8)
        *elem = DC_ELEM_F64;
    else
        *elem = DC_ELEM_RAW;
    return MPI_SUCCESS;
}

static struct {
    int64_t size;
    MPI_Datatype t;
} raw[32];
static int nraw;

MPI_Datatype dc_raw_type(int64_t esize)
{
    for (int i = 0; i < nraw; i++)
        if (raw[i].size == esize)
            return raw[i].t;
    MPI_Datatype t;
    if (nraw == 32 || esize <= 0 || esize > INT32_MAX || MPI_Type_contiguous((int)esize, MPI_BYTE, &t) != MPI_SUCCESS)
        return MPI_DATATYPE_NULL;
    MPI_Type_commit(&t);
    raw[nraw].size = esize;
    raw[nraw++].t = t;
    return t;
}

void dc_ops_release(void)
{
    for (int i = 0; i < nraw; i++)
        MPI_Type_free(&raw[i].t);
    nraw = 0;
}
