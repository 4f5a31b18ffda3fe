/* Scale: a type of 10^6 irregular pieces flattens in < 0.5 s with memory
 * linear in the pieces (ordered and shuffled hindexed, a 10^6-member
 * struct); 10^6 random seeks; types beyond 2^31 elements and 2^32 bytes.
 * The time limit (on CPU time, wall time printed too) is enforced unless
 * built with sanitizers. */
#include "dt_oracle.h"

#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#define NPIECES 1000000

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static long maxrss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

static void limit(double secs, const char *what)
{
#ifndef FERRY_DT_SANITIZED
    DT_CHECK(secs < 0.5, "%s took %.3f s (limit 0.5 s)", what, secs);
#else
    (void)secs;
    (void)what;
#endif
}

/* Runs of the stream must be exactly the pieces (no piece touches the next). */
static void same_pieces(const ferry_flat *f, const int *bl, const MPI_Aint *d, int n)
{
    ferry_iter it;
    int64_t off, len;
    ferry_iter_init(&it, f, 0, 1, 0);
    int i = 0, bad = 0;
    while (ferry_iter_next(&it, 0, &off, &len)) {
        if (i >= n || off != d[i] || len != bl[i])
            bad++;
        i++;
    }
    DT_CHECK(!bad && i == n, "pieces differ: %d bad, %d of %d", bad, i, n);
}

static void hindexed(int shuffled)
{
    const char *name = shuffled ? "10^6-piece hindexed, shuffled" : "10^6-piece hindexed, ordered";
    snprintf(dt_context, sizeof dt_context, "%s", name);
    int *bl = malloc(NPIECES * sizeof *bl);
    MPI_Aint *d = malloc(NPIECES * sizeof *d);
    uint64_t rs = 42;
    MPI_Aint pos = 0;
    for (int i = 0; i < NPIECES; i++) {
        bl[i] = (int)dt_range(&rs, 1, 64);
        d[i] = pos;
        pos += bl[i] + dt_range(&rs, 1, 64);
    }
    if (shuffled) /* swap neighbouring pairs: decreasing, still disjoint */
        for (int i = 0; i + 1 < NPIECES; i += 2) {
            MPI_Aint td = d[i];
            int tb = bl[i];
            d[i] = d[i + 1], bl[i] = bl[i + 1];
            d[i + 1] = td, bl[i + 1] = tb;
        }
    MPI_Datatype t;
    MPI_Type_create_hindexed(NPIECES, bl, d, MPI_BYTE, &t);
    MPI_Type_commit(&t);
    long rss0 = maxrss_kb();
    double c0 = cpu(), t0 = now();
    ferry_flat *f;
    int rc = ferry_flat_get(t, &f);
    double t1 = now(), c1 = cpu();
    DT_CHECK(rc == MPI_SUCCESS, "get");
    long rss1 = maxrss_kb();
    ferry_flat *g;
    ferry_flat_get(t, &g);
    double t2 = now();
    int64_t bytes = f->nsegs * (int64_t)sizeof(ferry_seg) + (f->nsegs + 1) * (int64_t)sizeof(int64_t);
    printf("%s: flatten %.3f s (cpu %.3f s), cached lookup %.1f us, nsegs %lld, flat %.1f MB (%.0f B/piece), "
           "peak RSS +%.1f MB\n",
           name, t1 - t0, c1 - c0, (t2 - t1) * 1e6, (long long)f->nsegs, bytes / 1e6, (double)bytes / NPIECES,
           (rss1 - rss0) / 1e3);
    limit(c1 - c0, name); /* CPU time: other builds may share the machine */
    DT_CHECK(f->nblocks == NPIECES, "nblocks %lld", (long long)f->nblocks);
    DT_CHECK(!!(f->flags & FERRY_FLAT_DECREASE) == shuffled, "DECREASE");
    DT_CHECK(!(f->flags & FERRY_FLAT_OVERLAP), "no OVERLAP");
    DT_CHECK(bytes <= 48LL * NPIECES, "memory not linear: %lld bytes", (long long)bytes);
    same_pieces(f, bl, d, NPIECES);

    /* 10^6 random seeks */
    ferry_iter it;
    int64_t off, len, sum = 0;
    t0 = now();
    for (int k = 0; k < NPIECES; k++) {
        ferry_iter_init(&it, f, 0, 1, dt_range(&rs, 0, f->size - 1));
        ferry_iter_next(&it, 0, &off, &len);
        sum += off;
    }
    t1 = now();
    printf("%s: 10^6 random seeks %.3f s (%.0f ns each, checksum %lld)\n", name, t1 - t0, (t1 - t0) * 1e3,
           (long long)sum);
    ferry_flat_release(f);
    ferry_flat_release(g);
    MPI_Type_free(&t);
    free(bl);
    free(d);
}

static void big_struct(void)
{
    snprintf(dt_context, sizeof dt_context, "10^6-member struct");
    int *bl = malloc(NPIECES * sizeof *bl);
    MPI_Aint *d = malloc(NPIECES * sizeof *d);
    MPI_Datatype *ty = malloc(NPIECES * sizeof *ty);
    for (int i = 0; i < NPIECES; i++) {
        bl[i] = 1 + i % 3;
        d[i] = (MPI_Aint)i * 40;
        ty[i] = i % 2 ? MPI_INT : MPI_DOUBLE;
    }
    MPI_Datatype t;
    MPI_Type_create_struct(NPIECES, bl, d, ty, &t);
    double c0 = cpu(), t0 = now();
    ferry_flat *f;
    DT_CHECK(ferry_flat_get(t, &f) == MPI_SUCCESS, "get");
    double t1 = now(), c1 = cpu();
    printf("10^6-member struct: flatten %.3f s (cpu %.3f s), nsegs %lld\n", t1 - t0, c1 - c0, (long long)f->nsegs);
    limit(c1 - c0, "10^6-member struct");
    DT_CHECK(f->nblocks == NPIECES, "nblocks %lld", (long long)f->nblocks);
    ferry_flat_release(f);
    MPI_Type_free(&t);
    free(bl);
    free(d);
    free(ty);
}

/* One derived member type repeated: Open MPI hands each member out as a fresh
 * copy, MPICH as the same handle (flattened once). */
static void struct_of_derived(void)
{
    enum { M = 100000 };
    snprintf(dt_context, sizeof dt_context, "struct of 10^5 derived members");
    int *bl = malloc(M * sizeof *bl);
    MPI_Aint *d = malloc(M * sizeof *d);
    MPI_Datatype *ty = malloc(M * sizeof *ty), v, t;
    MPI_Type_vector(3, 1, 2, MPI_INT, &v);
    for (int i = 0; i < M; i++)
        bl[i] = 1, d[i] = (MPI_Aint)i * 64, ty[i] = v;
    MPI_Type_create_struct(M, bl, d, ty, &t);
    double t0 = now();
    ferry_flat *f;
    DT_CHECK(ferry_flat_get(t, &f) == MPI_SUCCESS, "get");
    double t1 = now();
    printf("struct of 10^5 derived members: flatten %.3f s, nsegs %lld\n", t1 - t0, (long long)f->nsegs);
    DT_CHECK(f->nblocks == 3 * M && f->nsegs == M, "nblocks %lld nsegs %lld", (long long)f->nblocks,
             (long long)f->nsegs);
    ferry_flat_release(f);
    MPI_Type_free(&t);
    MPI_Type_free(&v);
    free(bl);
    free(d);
    free(ty);
}

static void huge(void)
{
    ferry_flat *f;
    MPI_Datatype t, c;
    snprintf(dt_context, sizeof dt_context, "huge types");
    /* 2^32 bytes through nesting (works on MPI-3 too) */
    MPI_Type_contiguous(1 << 12, MPI_BYTE, &c);
    MPI_Type_contiguous(1 << 20, c, &t);
    DT_CHECK(ferry_flat_get(t, &f) == MPI_SUCCESS, "get");
    DT_CHECK(f->contig && f->nsegs == 1 && f->size == (int64_t)1 << 32, "2^32-byte contiguous");
    ferry_flat_release(f);
    MPI_Type_free(&t);
    MPI_Type_vector(1 << 20, 1, 2, c, &t); /* 2^20 blocks of 4 KiB, 2^32 data bytes */
    DT_CHECK(ferry_flat_get(t, &f) == MPI_SUCCESS, "get");
    DT_CHECK(f->nsegs == 1 && f->segs[0].count == 1 << 20 && f->size == (int64_t)1 << 32, "2^32-byte vector");
    DT_CHECK(ferry_flat_offset_of(f, 0, ((int64_t)1 << 32) - 1) == ((int64_t)1 << 33) - (1 << 12) - 1, "last byte");
    ferry_flat_release(f);
    MPI_Type_free(&t);
    MPI_Type_free(&c);
#if MPI_VERSION >= 4
    /* more than 2^31 elements through the _c constructors */
    MPI_Count n = ((MPI_Count)3 << 31) + 5;
    MPI_Type_contiguous_c(n, MPI_BYTE, &t);
    DT_CHECK(ferry_flat_get(t, &f) == MPI_SUCCESS, "get");
    DT_CHECK(f->contig && f->size == n, "contiguous_c(3*2^31+5)");
    ferry_flat_release(f);
    MPI_Type_free(&t);
    MPI_Type_vector_c(n, 1, 2, MPI_INT, &t);
    DT_CHECK(ferry_flat_get(t, &f) == MPI_SUCCESS, "get");
    DT_CHECK(f->nsegs == 1 && f->segs[0].count == n && f->segs[0].stride == 8 && f->size == 4 * n,
             "vector_c(3*2^31+5)");
    DT_CHECK(ferry_flat_offset_of(f, 0, 4 * (n - 1) + 1) == 8 * (n - 1) + 1, "offset_of last element");
    ferry_flat_release(f);
    MPI_Type_free(&t);
    MPI_Count bls[] = {n, 7}, ds[] = {(MPI_Count)1 << 40, 0};
    MPI_Type_create_hindexed_c(2, bls, ds, MPI_BYTE, &t);
    DT_CHECK(ferry_flat_get(t, &f) == MPI_SUCCESS, "get");
    DT_CHECK(f->nsegs == 2 && f->segs[0].off == (int64_t)1 << 40 && f->segs[0].len == n && f->segs[1].len == 7 &&
                 (f->flags & FERRY_FLAT_DECREASE),
             "hindexed_c beyond 2^40");
    ferry_flat_release(f);
    MPI_Type_free(&t);
#endif
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    hindexed(0);
    hindexed(1);
    big_struct();
    struct_of_derived();
    huge();
    return dt_finish("datatype_perf");
}
