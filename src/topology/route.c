/* Routes and distances through the model, with argument checks, and the
 * tree all static routes into one node form. */
#include "topology/model.h"

#include <errno.h>

int ferry_topo_route(const ferry_topo_machine *m, int a, int b, int *links) {
  if (!m || !links || a < 0 || b < 0 || a >= m->nnodes || b >= m->nnodes) return -EINVAL;
  return m->ops->route(m, a, b, links);
}

int ferry_topo_distance(const ferry_topo_machine *m, int a, int b) {
  if (!m || a < 0 || b < 0 || a >= m->nnodes || b >= m->nnodes) return -EINVAL;
  return m->ops->distance(m, a, b);
}

/* Every model routes by destination (the next hop depends only on where the
 * packet is and where it goes), so the first link of route(v, dst) is v's
 * tree edge and the rest of the route is its parent's route. */
int ferry_topo_route_tree(const ferry_topo_machine *m, int dst, int *parent_link, int *depth) {
  if (!m || dst < 0 || dst >= m->nnodes) return -EINVAL;
  int links[FERRY_TOPO_MAX_ROUTE];
  for (int v = 0; v < m->nnodes; v++) {
    int n = m->ops->route(m, v, dst, links);
    if (parent_link) parent_link[v] = n ? links[0] : -1;
    if (depth) depth[v] = n;
  }
  return 0;
}

void ferry_topo__gw_distances(const ferry_topo_machine *m, int node, uint16_t *out) {
  if (m->ops->gw_distances) {
    m->ops->gw_distances(m, node, out);
    return;
  }
  for (int g = 0; g < m->ngw; g++) out[g] = (uint16_t)m->ops->distance(m, node, m->gw_node[g]);
}
