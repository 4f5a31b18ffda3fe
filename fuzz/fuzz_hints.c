/*
 * libFuzzer harness for the hints parser: every way a hint value reaches
 * ferry as text. The first input byte picks the entry point, the rest is
 * the text:
 *   0  FERRY_HINTS rules: "<file name>\n<spec>" -> ferry_hints_apply_patterns
 *   1  key=value lines   -> ferry_hints_set
 *   2  key=value lines   -> an MPI_Info -> ferry_hints_apply_info
 *   3  a FERRY_HINTS_FILE text (in a memfd) -> ferry_hints_apply_file
 * Afterwards every hint must hold a legal value (bad values are warned and
 * ignored, never stored), the warnings must be terminated strings, and the
 * hints must survive get_info -> MPI_Info -> apply unchanged. Any violation
 * aborts, so libFuzzer keeps the input.
 */
#define _GNU_SOURCE
#include "core/hints.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define REQUIRE(c)                                                                  \
    do {                                                                            \
        if (!(c)) {                                                                 \
            fprintf(stderr, "fuzz_hints: %s:%d: %s\n", __FILE__, __LINE__, #c);     \
            abort();                                                                \
        }                                                                           \
    } while (0)

static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    devnull = fopen("/dev/null", "w");
    return 0;
}

static int terminated(const char *s, size_t cap)
{
    return memchr(s, 0, cap) != NULL;
}

static void check_legal(const ferry_hints *h, const ferry_hint_warnings *w)
{
    const int64_t TiB = (int64_t)1 << 40;
    REQUIRE(h->cb_buffer_size > 0 && h->cb_buffer_size <= TiB);
    REQUIRE(h->ind_rd_buffer_size > 0 && h->ind_rd_buffer_size <= TiB);
    REQUIRE(h->ind_wr_buffer_size > 0 && h->ind_wr_buffer_size <= TiB);
    REQUIRE(h->striping_unit >= 0 && h->striping_unit <= TiB);
    REQUIRE(h->ds_threshold >= 0 && h->ds_threshold <= TiB);
    REQUIRE(h->cb_nodes >= 0 && h->striping_factor >= 0);
    REQUIRE(h->local_aggregators >= 1);
    REQUIRE(terminated(h->cb_config_list, sizeof h->cb_config_list) && h->cb_config_list[0]);
    REQUIRE(h->romio_ds_read >= FERRY_TRI_AUTO && h->romio_ds_read <= FERRY_TRI_DISABLE);
    REQUIRE(h->romio_ds_write >= FERRY_TRI_AUTO && h->romio_ds_write <= FERRY_TRI_DISABLE);
    REQUIRE(h->write_strategy >= FERRY_COLL_AUTO && h->write_strategy <= FERRY_COLL_LOCAL);
    REQUIRE(h->read_strategy >= FERRY_COLL_AUTO && h->read_strategy <= FERRY_COLL_LOCAL);
    REQUIRE(h->ind_write_strategy >= FERRY_IND_AUTO && h->ind_write_strategy <= FERRY_IND_FORWARD);
    REQUIRE(h->ind_read_strategy >= FERRY_IND_AUTO && h->ind_read_strategy <= FERRY_IND_FORWARD);
    REQUIRE(h->romio_no_indep_rw == 0 || h->romio_no_indep_rw == 1);
    REQUIRE(h->direct_read == 0 || h->direct_read == 1);
    REQUIRE(h->direct_write == 0 || h->direct_write == 1);
    REQUIRE(h->aggregator_placement == FERRY_PLACE_SPREAD || h->aggregator_placement == FERRY_PLACE_TOPOLOGY);
    REQUIRE(w->n >= 0 && w->n <= 16);
    for (int i = 0; i < w->n; i++)
        REQUIRE(terminated(w->msg[i], sizeof w->msg[i]));
}

/* get_info -> MPI_Info -> apply to defaults gives the same hints; the
 * displays and the JSON record never overflow. */
static void check_round_trip(const ferry_hints *h)
{
    MPI_Info info;
    REQUIRE(ferry_hints_to_info(h, &info) == MPI_SUCCESS);
    ferry_hints back;
    ferry_hint_warnings w = {0};
    ferry_hints_defaults(&back);
    ferry_hints_apply_info(&back, info, &w);
    MPI_Info_free(&info);
    if (!ferry_hints_equal(h, &back)) {
        fprintf(stderr, "fuzz_hints: get_info does not round-trip (%d warnings)\n", w.n);
        for (int i = 0; i < w.n; i++)
            fprintf(stderr, "  %s\n", w.msg[i]);
        abort();
    }
    REQUIRE(ferry_hints_digest(h) == ferry_hints_digest(&back));
    char json[16384];
    int need = ferry_hints_to_json(h, json, sizeof json);
    REQUIRE(need >= 0 && (size_t)need < sizeof json && strlen(json) == (size_t)need);
    char tiny[7];
    REQUIRE(ferry_hints_to_json(h, tiny, sizeof tiny) == need && strlen(tiny) < sizeof tiny);
    ferry_hints_display(h, "fuzz", devnull);
    char v[64];
    ferry_hints_get(h, "cb_config_list", v, sizeof v);
    REQUIRE(terminated(v, sizeof v));
}

/* Splits text at newlines into key=value pairs (a pair without '=' is a key
 * with an empty value). */
static void each_pair(char *text, void (*fn)(const char *k, const char *v, void *), void *arg)
{
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *eq = strchr(line, '=');
        if (eq)
            *eq++ = 0;
        fn(line, eq ? eq : "", arg);
    }
}

static void set_one(const char *k, const char *v, void *arg)
{
    void **a = arg;
    ferry_hints_set((ferry_hints *)a[0], k, v, (ferry_hint_warnings *)a[1]);
}

static void info_one(const char *k, const char *v, void *arg)
{
    MPI_Info *info = arg;
    if (*k && *v && strlen(k) < MPI_MAX_INFO_KEY && strlen(v) < MPI_MAX_INFO_VAL)
        MPI_Info_set(*info, k, v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 65536)
        return 0;
    int mode = data[0] % 4;
    char *text = malloc(size);
    memcpy(text, data + 1, size - 1);
    text[size - 1] = 0;
    ferry_hints h;
    ferry_hint_warnings w = {0};
    ferry_hints_defaults(&h);
    switch (mode) {
    case 0: {
        char *nl = strchr(text, '\n');
        const char *name = "dir/ckpt.h5", *spec = text;
        if (nl) {
            *nl = 0;
            name = text;
            spec = nl + 1;
        }
        ferry_hints_apply_patterns(&h, spec, name, &w);
        break;
    }
    case 1: {
        void *a[2] = {&h, &w};
        each_pair(text, set_one, a);
        break;
    }
    case 2: {
        MPI_Info info;
        MPI_Info_create(&info);
        each_pair(text, info_one, &info);
        ferry_hints_apply_info(&h, info, &w);
        MPI_Info_free(&info);
        break;
    }
    default: {
        int fd = memfd_create("hints", 0);
        if (fd < 0)
            break;
        size_t len = strlen(text);
        if (write(fd, text, len) == (ssize_t)len) {
            char path[64];
            snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
            ferry_hints_apply_file(&h, path, &w);
        }
        close(fd);
        break;
    }
    }
    check_legal(&h, &w);
    check_round_trip(&h);
    free(text);
    return 0;
}
