/* util/suggest.c: "did you mean" for misspelled hint keys, variables, options. */
#include "unit/check.h"
#include "util/suggest.h"

/* NULL as text, so a missing suggestion fails the check instead of crashing */
static const char *S(const char *s) { return s ? s : "(none)"; }

int main(void)
{
    CHECK(ferry_edit_distance("", "") == 0);
    CHECK(ferry_edit_distance("abc", "abc") == 0);
    CHECK(ferry_edit_distance("ABC", "abc") == 0);      /* case does not count */
    CHECK(ferry_edit_distance("cb_nodes", "cb_node") == 1);
    CHECK(ferry_edit_distance("cb_ndoes", "cb_nodes") == 1); /* a swap is one edit */
    CHECK(ferry_edit_distance("kitten", "sitting") == 3);
    CHECK(ferry_edit_distance("", "abc") == 3);
    char longname[80];
    memset(longname, 'a', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    CHECK(ferry_edit_distance(longname, "a") > 1000);

    const char *keys[] = {"cb_buffer_size", "cb_nodes", "romio_cb_write", "ferry_write_strategy", "striping_unit", NULL};
    size_t n = sizeof keys / sizeof *keys;
    CHECK_STR(S(ferry_suggest("cb_ndoes", keys, n)), "cb_nodes");
    CHECK_STR(S(ferry_suggest("cb_buffersize", keys, n)), "cb_buffer_size");
    CHECK_STR(S(ferry_suggest("ferry_write_stratgy", keys, n)), "ferry_write_strategy");
    CHECK(ferry_suggest("ROMIO_CB_WRITE", keys, n) == NULL); /* exact, case aside */
    CHECK(ferry_suggest("cb_nodes", keys, n) == NULL);    /* exact: nothing to suggest */
    CHECK(ferry_suggest("totally_else", keys, n) == NULL); /* too far to be a slip */
    CHECK(ferry_suggest("ab", keys, n) == NULL);
    const char *vars[] = {"FERRY_STATS", "FERRY_STATS_JSON", "FERRY_TIMERS", "FERRY_HINTS"};
    CHECK_STR(S(ferry_suggest("FERRY_STAT", vars, 4)), "FERRY_STATS");
    CHECK_STR(S(ferry_suggest("FERRY_TIMER", vars, 4)), "FERRY_TIMERS");
    CHECK_STR(S(ferry_suggest("FERRY_HINT", vars, 4)), "FERRY_HINTS");
    return check_failures ? 1 : 0;
}
