/* Printing compare/replay rows as the text table and as JSON. */
#ifndef FERRY_TOPO_OUTPUT_H
#define FERRY_TOPO_OUTPUT_H

#include <jansson.h>
#include <stdio.h>

#include "scenario.h"

void out_table(FILE *o, const scen_row *rows, int n, int detail);
/* The same columns as a Markdown table (for docs/topology-results.md). */
void out_markdown(FILE *o, const scen_row *rows, int n, int detail);
/* The rows as the "results" array; a failed allocation clears *ok. */
json_t *out_json_results(const scen_row *rows, int n, int detail, int *ok);
/* Prints doc on one line and frees it; 0, or -1 (said on stderr) when ok
 * is 0 or memory runs out. */
int out_json_done(json_t *doc, int ok, FILE *o);
/* The k links with the largest bytes/bandwidth. */
void out_top_links(FILE *o, const ferry_topo_machine *m, const ferry_topo_metrics *mt, int k);
int out_links_csv(const char *path, const ferry_topo_machine *m, const ferry_topo_metrics *mt);

#endif
