/*
 * Lookups over the list of strategies (strategy_desc.h). The list is short
 * and read at open and in statistics, never per byte: a walk is enough.
 */
#include "util/strategy_desc.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

const ferry_strategy_desc *ferry_strategy_of(ferry_strategy_kind kind, int id)
{
    int n = ferry_strategy_count(), seen = 0;
    for (int i = 0; i < n && id > 0; i++) {
        const ferry_strategy_desc *d = ferry_strategy_at(i);
        if (d->kind == kind && ++seen == id)
            return d;
    }
    return NULL;
}

int ferry_strategy_id(ferry_strategy_kind kind, const char *name)
{
    if (!name)
        return -1;
    if (!strcasecmp(name, "auto") || !strcasecmp(name, "automatic"))
        return 0;
    int n = ferry_strategy_count(), id = 0;
    for (int i = 0; i < n; i++) {
        const ferry_strategy_desc *d = ferry_strategy_at(i);
        if (d->kind != kind)
            continue;
        id++;
        if (!strcasecmp(d->name, name))
            return id;
    }
    return -1;
}

const char *ferry_strategy_name(ferry_strategy_kind kind, int id)
{
    if (id == 0)
        return "auto";
    const ferry_strategy_desc *d = ferry_strategy_of(kind, id);
    return d ? d->name : "?";
}

int ferry_strategy_takes(const ferry_strategy_desc *d, const char *hint)
{
    for (const char *const *h = d && d->hints ? d->hints : NULL; h && *h; h++)
        if (!strcmp(*h, hint))
            return 1;
    return 0;
}

void ferry_strategy_choices(ferry_strategy_kind kind, char *buf, size_t cap)
{
    size_t o = 0;
    buf[0] = '\0';
    int n = ferry_strategy_count();
    for (int i = 0; i < n && o < cap; i++) {
        const ferry_strategy_desc *d = ferry_strategy_at(i);
        if (d->kind != kind)
            continue;
        int k = snprintf(buf + o, cap - o, "%s, ", d->name);
        o += k > 0 ? (size_t)k : 0;
    }
    if (o >= 2 && o < cap)
        o -= 2; /* the last ", " gives way to " or auto" */
    if (o < cap)
        snprintf(buf + o, cap - o, "%sauto", o ? " or " : "");
}
