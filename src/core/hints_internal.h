/*
 * Private to the hints module: the table of every hint and the value
 * parsers and formatters that work from it.
 */
#ifndef FERRY_CORE_HINTS_INTERNAL_H
#define FERRY_CORE_HINTS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "core/hints.h"

typedef enum {
    HK_SIZE,      /* int64_t, plain integer or k/m/g suffix (powers of 2) */
    HK_INT,       /* int */
    HK_BOOL,      /* int 0/1: true/false/enable/disable/yes/no/1/0 */
    HK_TRI,       /* ferry_tri: enable/disable/automatic */
    HK_CBTRI,     /* romio_cb_*: enable/disable/automatic onto ferry_coll_strategy */
    HK_COLL,      /* ferry_coll_strategy */
    HK_IND,       /* ferry_ind_strategy */
    HK_PLACE,     /* ferry_placement */
    HK_FWDASSIGN, /* ferry_fwd_assign */
    HK_FWDERR,    /* ferry_fwd_errors */
    HK_LOCALAGG,  /* int >= 1 or "all" (FERRY_LOCAL_AGG_ALL) */
    HK_CBLIST,    /* cb_config_list string, validated */
    HK_LEARN,     /* ferry_learn_mode */
    HK_PATH,      /* a path (or a word such as "off"), no control characters */
    HK_HOSTS,     /* "none", a count, or a comma list of host names */
} hint_kind;

typedef struct hint_def {
    const char *name;
    hint_kind kind;
    size_t offset;     /* of the field in ferry_hints */
    int field;         /* index into ferry_hints.source; aliases share it */
    int alias;         /* 1: another name for the field of an earlier/later entry */
    int must_agree;    /* must be the same on every rank of a collective open */
    int64_t def;       /* default (numeric kinds, enum value) */
    int64_t min, max;  /* accepted range (numeric kinds) */
    const char *def_str; /* default of string kinds */
    const char *help;  /* one line for docs and display */
} hint_def;

extern const hint_def ferry_hint_table[];
extern const int ferry_hint_count;

/* Entry for key, or NULL. */
const hint_def *ferry_hint_find(const char *key);

/* Parses value for d into h. Returns 0 on success; otherwise fills why (a
 * short reason) and leaves h untouched. */
int ferry_hint_parse(ferry_hints *h, const hint_def *d, const char *value, char *why, size_t whylen);
/* The canonical string of d's current value (what get_info reports). */
void ferry_hint_format(const ferry_hints *h, const hint_def *d, char *buf, size_t len);
/* The hint's stored value as bytes (*p, returned length): parsed values are
 * canonical, so equal values are equal bytes. */
size_t ferry_hint_raw(const ferry_hints *h, const hint_def *d, const void **p);
/* Puts d's default value into h (source untouched). */
void ferry_hint_reset(ferry_hints *h, const hint_def *d);

/* Shared by hints.c and hints_env.c: apply with source and a context label
 * for warnings ("MPI_Info", "FERRY_HINTS", "FERRY_HINTS_FILE line 3").
 * Returns 1 applied, -1 ferry's key but the value was rejected (warned),
 * 0 unknown key (nothing done). */
int ferry_hint_apply_one(ferry_hints *h, const char *key, const char *value, ferry_hint_source src,
                         const char *ctx, ferry_hint_warnings *w);


/* The known key a misspelt one most likely meant, or NULL. */
const char *ferry_hint_closest(const char *key);

#endif
