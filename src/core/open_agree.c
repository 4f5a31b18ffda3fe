/*
 * One MPI_Allreduce(MAX) over int64 values:
 *  - a value v agrees when max(v) == -max(-v);
 *  - rank 0's facts ride as 32-bit words that the other ranks give as 0,
 *    so the maximum of each word is rank 0's.
 */
#include "core/open_agree.h"
#include "core/file.h"
#include "util/fnv.h"

#include <string.h>

enum { AG_ERR, AG_AMODE, AG_NAMODE, AG_DIGEST, AG_NDIGEST, AG_POOL, AG_NPOOL, AG_NAME, AG_NNAME,
       AG_DUP, AG_NDUP, AG_TEXT, AG_OPENED, AG_SW, AG_NSW = AG_SW + FERRY_SW_COUNT, AG_N = AG_NSW + FERRY_SW_COUNT };
#define FACT_WORDS ((sizeof(ferry_open_facts) + 3) / 4)

/* FNV-1a of the file name, shortened so its negation is representable. */
static int64_t name_hash(const char *s)
{
    return (int64_t)(ferry_fnv_str(s) >> 2);
}

int ferry_open_agree(MPI_Comm comm, int rank, const ferry_open_mine *m, ferry_open_agreed *a)
{
    int64_t nh = name_hash(m->name);
    int64_t d = (int64_t)(m->digest >> 2); /* keep -d representable */
    int64_t v[AG_N + FACT_WORDS], r[AG_N + FACT_WORDS];
    int64_t head[AG_SW] = {m->err, m->amode, -(int64_t)m->amode, d, -d, m->pool, -m->pool, nh, -nh,
                          m->dup, -(int64_t)m->dup, m->need_text, m->opened};
    memcpy(v, head, sizeof head);
    for (int i = 0; i < FERRY_SW_COUNT; i++) {
        v[AG_SW + i] = m->sw.v[i];
        v[AG_NSW + i] = -m->sw.v[i];
    }
    uint32_t words[FACT_WORDS];
    memset(words, 0, sizeof words);
    if (rank == 0)
        memcpy(words, &m->facts, sizeof m->facts);
    for (size_t i = 0; i < FACT_WORDS; i++)
        v[AG_N + i] = words[i];
    int rc = MPI_Allreduce(v, r, (int)(AG_N + FACT_WORDS), MPI_INT64_T, MPI_MAX, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    a->err = (int)r[AG_ERR];
    a->amode_differs = r[AG_AMODE] != -r[AG_NAMODE];
    a->hints_differ = r[AG_DIGEST] != -r[AG_NDIGEST];
    a->pool = r[AG_POOL] == -r[AG_NPOOL] ? r[AG_POOL] : FERRY_SHFP_OWN_WINDOW;
    a->names_differ = r[AG_NAME] != -r[AG_NNAME];
    a->dup = r[AG_DUP] == -r[AG_NDUP] ? (int)r[AG_DUP] : -1;
    a->need_text = r[AG_TEXT] != 0;
    a->opened = (int)r[AG_OPENED];
    memcpy(a->sw_max, r + AG_SW, sizeof a->sw_max);
    memcpy(a->sw_negmax, r + AG_NSW, sizeof a->sw_negmax);
    for (size_t i = 0; i < FACT_WORDS; i++)
        words[i] = (uint32_t)r[AG_N + i];
    memcpy(&a->facts, words, sizeof a->facts);
    return MPI_SUCCESS;
}
