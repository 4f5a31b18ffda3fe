/*
 * Host maps: how a real machine's hosts sit on a model. The text (the
 * library reads it from the file named after '@' in FERRY_TOPOLOGY) has one
 * host per line:
 *
 *   # comment
 *   hostname c0 c1 ... c(ndims-1)   coordinates on the model
 *   hostname N                      a node id (models without coordinates,
 *                                   or any model)
 *
 * Coordinates win when a line has exactly ndims numbers and ndims > 1. A
 * host matches a line exactly, or by short name (up to the first '.') on
 * either side, so "r01n03" and "r01n03.cluster" find each other. The first
 * matching line wins.
 */
#include "topology/model.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static size_t short_len(const char *s, size_t n)
{
    const char *dot = memchr(s, '.', n);
    return dot ? (size_t)(dot - s) : n;
}

static int host_matches(const char *a, size_t an, const char *b, size_t bn)
{
    if (an == bn && memcmp(a, b, an) == 0)
        return 1;
    size_t as = short_len(a, an), bs = short_len(b, bn);
    return as == bs && memcmp(a, b, as) == 0 && (as == an || as == bn);
}

/* Parses the numbers after the host name on one line; returns how many
 * (at most max), or -1 on a malformed number. */
static int parse_numbers(const char *p, const char *end, long *v, int max)
{
    int n = 0;
    while (p < end) {
        while (p < end && (isspace((unsigned char)*p) || *p == ','))
            p++;
        if (p >= end || *p == '#')
            break;
        char num[32];
        size_t len = 0;
        while (p < end && !isspace((unsigned char)*p) && *p != ',' && *p != '#' && len < sizeof num - 1)
            num[len++] = *p++;
        num[len] = 0;
        char *stop;
        errno = 0;
        long x = strtol(num, &stop, 10);
        if (errno || *stop || stop == num || n >= max)
            return -1;
        v[n++] = x;
    }
    return n;
}

int ferry_topo_hostmap_node(const ferry_topo_machine *m, const char *text, const char *host, char *err,
                            size_t errlen)
{
    size_t hn = strlen(host);
    int nd = ferry_topo_ndims(m), lineno = 0;
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        if (!end)
            end = line + strlen(line);
        lineno++;
        const char *p = line;
        while (p < end && isspace((unsigned char)*p))
            p++;
        const char *name = p;
        while (p < end && !isspace((unsigned char)*p) && *p != '#')
            p++;
        size_t len = (size_t)(p - name);
        if (len > 0 && host_matches(name, len, host, hn)) {
            long v[FERRY_TOPO_MAX_DIMS];
            int n = parse_numbers(p, end, v, FERRY_TOPO_MAX_DIMS);
            int node = -1;
            if (n == nd && nd > 1) {
                int c[FERRY_TOPO_MAX_DIMS];
                for (int i = 0; i < n; i++)
                    c[i] = v[i] < 0 || v[i] > 1 << 20 ? -1 : (int)v[i];
                node = ferry_topo_node_at(m, c);
            } else if (n == 1 && v[0] >= 0 && v[0] < ferry_topo_nodes(m)) {
                node = (int)v[0];
            }
            if (node < 0 || ferry_topo_is_service(m, node)) {
                ferry_topo__seterr(err, errlen, "line %d: host %.*s: want %d coordinates or a compute node id",
                                   lineno, (int)len, name, nd);
                return -1;
            }
            return node;
        }
        line = *end ? end + 1 : end;
    }
    ferry_topo__seterr(err, errlen, "host %s is not in the map", host);
    return -1;
}
