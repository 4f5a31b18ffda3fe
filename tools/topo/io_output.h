/* Printing simulate and advise rows: the text table (bytes in readable
 * units) and JSON through jansson. */
#ifndef FERRY_TOPO_IO_OUTPUT_H
#define FERRY_TOPO_IO_OUTPUT_H

#include <stdio.h>

#include "cmd.h"

/* The machine, the writers and the costs, as '#' lines. */
void out_io_header(FILE *o, const io_setup *s, const char *how);
void out_io_table(FILE *o, const io_setup *s, const io_row *rows, int n);
/* "bridge 3 link: 1.00 GiB", "I/O node 1 requests: 2048", "link ...: 12.0 MiB" */
void out_io_bound(const ferry_topo_machine *m, const ferry_topo_binding *b, char *buf, size_t len);
/* The verdict object (advise) may be NULL; it is added as "advice". */
int out_io_json(FILE *o, const io_setup *s, const io_row *rows, int n, void *advice_json);

#endif
