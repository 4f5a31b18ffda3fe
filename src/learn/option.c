/* A learned option's text forms (option.h). */
#include "learn/option.h"
#include "util/strategy_desc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ferry_coll_option_name(const ferry_coll_option *o, char *buf, size_t cap)
{
    const char *s = ferry_strategy_name(FERRY_STRATEGY_COLLECTIVE, o->strategy);
    if (o->cb_nodes)
        snprintf(buf, cap, "%s cb_nodes=%d", s, o->cb_nodes);
    else
        snprintf(buf, cap, "%s", s);
}

int ferry_coll_option_parse(const char *name, ferry_coll_option *o)
{
    static const char tail[] = " cb_nodes=";
    const char *sp = strchr(name, ' ');
    size_t n = sp ? (size_t)(sp - name) : strlen(name);
    char s[64];
    if (n >= sizeof s)
        return -1;
    memcpy(s, name, n);
    s[n] = '\0';
    /* the name is ferry's own, in the list's spelling */
    int id = ferry_strategy_id(FERRY_STRATEGY_COLLECTIVE, s);
    if (id <= 0 || strcmp(ferry_strategy_name(FERRY_STRATEGY_COLLECTIVE, id), s))
        return -1;
    o->strategy = id;
    o->cb_nodes = 0;
    if (!sp)
        return 0;
    if (strncmp(sp, tail, sizeof tail - 1))
        return -1;
    char *end = NULL;
    long cb = strtol(sp + sizeof tail - 1, &end, 10);
    if (end == sp + sizeof tail - 1 || *end || cb <= 0 || cb > 1 << 24)
        return -1;
    o->cb_nodes = (int)cb;
    return 0;
}

void ferry_coll_option_hint(const ferry_coll_option *o, int is_write, char *buf, size_t cap)
{
    const char *s = ferry_strategy_name(FERRY_STRATEGY_COLLECTIVE, o->strategy);
    const char *dir = is_write ? "write" : "read";
    if (o->cb_nodes)
        snprintf(buf, cap, "ferry_%s_strategy=%s:cb_nodes=%d", dir, s, o->cb_nodes);
    else
        snprintf(buf, cap, "ferry_%s_strategy=%s", dir, s);
}

void ferry_coll_option_to_store(const ferry_coll_option *o, ferry_learned_option *s)
{
    snprintf(s->strategy, sizeof s->strategy, "%s", ferry_strategy_name(FERRY_STRATEGY_COLLECTIVE, o->strategy));
    s->cb_nodes = o->cb_nodes;
}

int ferry_coll_option_from_store(const ferry_learned_option *s, ferry_coll_option *o)
{
    int id = ferry_learned_strategy_id(s->strategy);
    if (id < 0)
        return -1;
    o->strategy = id;
    o->cb_nodes = s->cb_nodes;
    return 0;
}
