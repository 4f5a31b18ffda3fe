/* sim_run(): flows -> a dense platform description, then the SimGrid run in
 * a child process (one engine per process), its result read back through a
 * pipe. */
#define _POSIX_C_SOURCE 200809L
#include "sim.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double wall_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

typedef struct {
  size_t *off;
  int *route, *msgs, *sink, *dense, *ldense_inv, *sink_of;
  double *mbytes, *bw;
} spec_mem;

static void spec_free(spec_mem *s) {
  free(s->off), free(s->route), free(s->msgs), free(s->sink), free(s->dense);
  free(s->ldense_inv), free(s->sink_of), free(s->mbytes), free(s->bw);
}

/* Receivers: gateway g is sink g; a node receiving without a gateway gets
 * a sink of its own after those. */
static int build_spec(const ferry_topo_machine *m, const ferry_topo_flow *fl, size_t n, const sim_params *p,
                      sim_spec *sp, spec_mem *mem, char *err, size_t errlen) {
  int L = ferry_topo_links(m), G = ferry_topo_gateways(m), N = ferry_topo_nodes(m);
  memset(mem, 0, sizeof *mem);
  mem->off = malloc((n + 1) * sizeof *mem->off);
  mem->msgs = malloc((n ? n : 1) * sizeof *mem->msgs);
  mem->sink = malloc((n ? n : 1) * sizeof *mem->sink);
  mem->mbytes = malloc((n ? n : 1) * sizeof *mem->mbytes);
  mem->dense = malloc((size_t)L * sizeof *mem->dense);
  mem->ldense_inv = malloc((size_t)L * sizeof *mem->ldense_inv);
  mem->sink_of = malloc((size_t)N * sizeof *mem->sink_of);
  int *buf = malloc(FERRY_TOPO_MAX_ROUTE * sizeof *buf);
  if (!mem->off || !mem->msgs || !mem->sink || !mem->mbytes || !mem->dense || !mem->ldense_inv || !mem->sink_of ||
      !buf) {
    free(buf);
    return -ENOMEM;
  }
  for (int l = 0; l < L; l++) mem->dense[l] = -1;
  for (int v = 0; v < N; v++) mem->sink_of[v] = -1;
  size_t cap = n * 8 + 16, k = 0;
  mem->route = malloc(cap * sizeof *mem->route);
  int nl = 0, nsinks = G, longest = 0;
  for (size_t f = 0; f < n && mem->route; f++) {
    const ferry_topo_flow *x = &fl[f];
    if (x->src < 0 || x->src >= N || x->dst < 0 || x->dst >= N || x->gw >= G || !(x->bytes >= 0) ||
        !(x->msgs >= 1) || x->msgs > 1e6) {
      snprintf(err, errlen, "flow %zu: bad endpoints, gateway, bytes or message count", f);
      free(buf);
      return -EINVAL;
    }
    int len = ferry_topo_route(m, x->src, x->dst, buf);
    if (len > longest) longest = len;
    if (x->gw >= 0) buf[len++] = ferry_topo_gateway_exit_link(m, x->gw);
    if (k + (size_t)len > cap) {
      int *r = realloc(mem->route, (cap = cap * 2 + (size_t)len) * sizeof *r);
      if (!r) {
        free(buf);
        return -ENOMEM;
      }
      mem->route = r;
    }
    mem->off[f] = k;
    for (int h = 0; h < len; h++) {
      int l = buf[h];
      if (mem->dense[l] < 0) mem->ldense_inv[nl] = l, mem->dense[l] = nl++;
      mem->route[k++] = mem->dense[l];
    }
    int msgs = (int)(x->msgs + 0.5);
    mem->msgs[f] = msgs;
    mem->mbytes[f] = x->bytes / msgs;
    if (x->gw >= 0) mem->sink[f] = x->gw;
    else {
      if (mem->sink_of[x->dst] < 0) mem->sink_of[x->dst] = nsinks++;
      mem->sink[f] = mem->sink_of[x->dst];
    }
  }
  free(buf);
  if (!mem->route) return -ENOMEM;
  mem->off[n] = k;
  mem->bw = malloc((size_t)(nl ? nl : 1) * sizeof *mem->bw);
  if (!mem->bw) return -ENOMEM;
  for (int l = 0; l < nl; l++) mem->bw[l] = ferry_topo_link_bandwidth(m, mem->ldense_inv[l]);
  sp->nflows = n;
  sp->route_off = mem->off;
  sp->route = mem->route;
  sp->msgs = mem->msgs;
  sp->msg_bytes = mem->mbytes;
  sp->sink = mem->sink;
  sp->nsinks = nsinks;
  sp->nlinks = nl;
  sp->link_bw = mem->bw;
  sp->latency = longest * (p->hop_latency > 0 ? p->hop_latency : ferry_topo_hop_latency(m));
  sp->msg_cost = p->msg_cost;
  sp->split = p->split;
  return 0;
}

int sim_in_child(int (*fn)(const void *arg, double *t), const void *arg, double *t_out, double *wall, char *err,
                 size_t errlen) {
  int fd[2];
  if (pipe(fd)) {
    snprintf(err, errlen, "pipe: %s", strerror(errno));
    return -errno;
  }
  fflush(stdout);
  fflush(stderr);
  double t0 = wall_now();
  pid_t pid = fork();
  if (pid < 0) {
    snprintf(err, errlen, "fork: %s", strerror(errno));
    close(fd[0]), close(fd[1]);
    return -EAGAIN;
  }
  if (pid == 0) {
    close(fd[0]);
    double t = -1;
    int crc = fn(arg, &t);
    ssize_t w = write(fd[1], &t, sizeof t);
    _exit(crc == 0 && w == (ssize_t)sizeof t ? 0 : 1);
  }
  close(fd[1]);
  double t = -1;
  ssize_t r = read(fd[0], &t, sizeof t);
  close(fd[0]);
  int st;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  *wall = wall_now() - t0;
  if (r != (ssize_t)sizeof t || !WIFEXITED(st) || WEXITSTATUS(st) != 0 || !(t >= 0)) {
    snprintf(err, errlen, "the SimGrid run failed (%s %d)", WIFSIGNALED(st) ? "signal" : "status",
             WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
    return -EIO;
  }
  *t_out = t;
  return 0;
}

static int run_flows(const void *arg, double *t) { return sim_engine_run(arg, t); }

int sim_run(const ferry_topo_machine *m, const ferry_topo_flow *flows, size_t nflows, const sim_params *p,
            sim_result *out, char *err, size_t errlen) {
  sim_spec sp;
  spec_mem mem;
  memset(out, 0, sizeof *out);
  int rc = build_spec(m, flows, nflows, p, &sp, &mem, err, errlen);
  if (rc) {
    if (rc == -ENOMEM) snprintf(err, errlen, "out of memory building the platform");
    spec_free(&mem);
    return rc;
  }
  out->nflows = (long)nflows;
  for (size_t f = 0; f < nflows; f++) out->nmsgs += sp.split ? sp.msgs[f] : 1;
  out->nlinks = sp.nlinks;
  rc = sim_in_child(run_flows, &sp, &out->t_sim, &out->wall, err, errlen);
  spec_free(&mem);
  return rc;
}
