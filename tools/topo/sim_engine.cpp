// The SimGrid platform and run for sim.h. C++ only because SimGrid builds
// platforms programmatically through its S4U API.
//
// Platform: one star zone. Every flow gets its own sender host whose "up"
// route is the flow's link list (torus links, then the gateway exit link);
// receivers have empty routes. Links are shared between the routes that
// cross them, which is all the contention the model needs; the star zone
// stores one route per host instead of one per host pair.
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "sim.h"

namespace sg4 = simgrid::s4u;

namespace {

// Receivers do kServiceSpeed units of work per second and a request costs
// msg_cost x kServiceSpeed units: large enough amounts that the solver's
// absolute precision (maxmin/precision, 1e-5) is negligible.
constexpr double kServiceSpeed = 1e9;

// A flow's messages share route, size and start, so max-min gives them
// equal rates and they end together: unless split, they travel as one
// communication with n times the bytes and n times the share (see the
// weight below) and are served as n requests on delivery.
void flow_actor(const sim_spec* s, size_t f, sg4::Host* from, sg4::Host* to, double lead)
{
  int n          = s->msgs[f];
  int ncomms     = s->split ? n : 1;
  auto bytes     = static_cast<uint64_t>(s->msg_bytes[f] * (n / ncomms) + 0.5);
  bool has_route = s->route_off[f + 1] > s->route_off[f];
  std::vector<sg4::ExecPtr> service;
  auto serve = [&](int k) {
    for (int i = 0; i < k && s->msg_cost > 0; i++)
      service.push_back(sg4::Exec::init()->set_flops_amount(s->msg_cost * kServiceSpeed)->set_host(to)->start());
  };
  if (has_route && bytes > 0) {
    if (lead > 0)
      sg4::this_actor::sleep_for(lead); // the part of the route latency the weight link leaves out
    std::vector<sg4::CommPtr> comms;
    comms.reserve(ncomms);
    for (int k = 0; k < ncomms; k++)
      comms.push_back(sg4::Comm::sendto_async(from, to, bytes));
    while (not comms.empty()) {
      ssize_t i = sg4::Comm::wait_any(comms);
      comms.erase(comms.begin() + i);
      serve(n / ncomms);
    }
  } else {
    serve(n); // inside a node: no link, only the receiver's work
  }
  for (auto const& e : service)
    e->wait();
}

} // namespace

// The engine's configuration, shared by both entry points.
static void configure()
{
  // Max-min sharing without TCP corrections, so that simple cases have a
  // closed form: no bandwidth/latency factors, no RTT weighting, no
  // window bound, no reverse (ACK) traffic.
  sg4::Engine::set_config("network/model:CM02");
  sg4::Engine::set_config("network/crosstraffic:0");
  sg4::Engine::set_config("network/TCP-gamma:0");
  sg4::Engine::set_config("network/weight-S:0");
  sg4::Engine::set_config("network/latency-factor:1");
  sg4::Engine::set_config("network/bandwidth-factor:1");
  // One actor per flow: 49,152 on full Mira. Small stacks without guard
  // pages, or the stacks' mappings pass Linux's vm.max_map_count (65,530).
  sg4::Engine::set_config("contexts/stack-size:64");
  sg4::Engine::set_config("contexts/guard-size:0");
}

// The shared links of a platform: no latency (see below).
static std::vector<sg4::Link*> make_links(sg4::NetZone* zone, int n, const double* bw)
{
  std::vector<sg4::Link*> links(n);
  for (int l = 0; l < n; l++)
    links[l] = zone->create_link("l" + std::to_string(l), bw[l])->set_latency(0)->seal();
  return links;
}

// A fresh engine configured as above: build() fills the zone and starts the
// actors, returning whatever they use while the engine runs; the simulated
// end comes back in *t_sim.
template <class Build> static int simulate(Build build, double* t_sim)
{
  try {
    int argc     = 2;
    char name[]  = "ferry-topo";
    char quiet[] = "--log=root.thres:critical"; // no configuration chatter on stderr
    char* argv[] = {name, quiet, nullptr};
    sg4::Engine e(&argc, argv);
    configure();
    auto keep = build(sg4::create_star_zone("ferry")); // alive until the run ends
    e.run();
    (void)keep;
    *t_sim = sg4::Engine::get_clock();
    return 0;
  } catch (const std::exception& ex) {
    fprintf(stderr, "ferry-topo: simgrid: %s\n", ex.what());
    return -1;
  }
}

static int build_flows(const sim_spec* s, sg4::NetZone* zone)
{
  // CM02 shares a link in inverse proportion to each communication's route
  // latency (TCP's RTT unfairness): flows with more hops would get less.
  // Shared links therefore have no latency; each flow gets a private link,
  // never a bottleneck, whose latency sets its weight: the longest route's
  // latency L for one message (plain max-min), L / n for n merged messages
  // (n shares). The actor sleeps L - L / n first, so every message pays L,
  // the latency the floor adds.
  auto links = make_links(zone, s->nlinks, s->link_bw);
  double lat = std::max(1e-12, s->latency);
  std::vector<sg4::Host*> sinks(s->nsinks);
  for (int k = 0; k < s->nsinks; k++)
    sinks[k] = zone->create_host("r" + std::to_string(k), kServiceSpeed)->seal();
  std::vector<sg4::Host*> senders(s->nflows);
  for (size_t f = 0; f < s->nflows; f++) {
    senders[f] = zone->create_host("f" + std::to_string(f), 1e9)->seal();
    std::vector<sg4::LinkInRoute> up;
    int weight = s->split ? 1 : std::max(1, s->msgs[f]);
    up.emplace_back(zone->create_link("p" + std::to_string(f), 1e18)->set_latency(lat / weight)->seal());
    for (size_t q = s->route_off[f]; q < s->route_off[f + 1]; q++)
      up.emplace_back(links[s->route[q]]);
    zone->add_route(senders[f]->get_netpoint(), nullptr, nullptr, nullptr, up, false);
  }
  zone->seal();
  for (size_t f = 0; f < s->nflows; f++) {
    sg4::Host* from = senders[f];
    sg4::Host* to   = sinks[s->sink[f]];
    double lead     = s->split ? 0 : lat - lat / std::max(1, s->msgs[f]);
    sg4::Actor::create("a" + std::to_string(f), from, [s, f, from, to, lead]() { flow_actor(s, f, from, to, lead); });
  }
  return 0;
}

extern "C" int sim_engine_run(const sim_spec* s, double* t_sim)
{
  return simulate([s](sg4::NetZone* zone) { return build_flows(s, zone); }, t_sim);
}


// ---- I/O paths ------------------------------------------------------------

namespace {

// A shipper's queue: batches ready to write, in the order they became
// ready, and a condition its actor sleeps on while the queue is empty.
struct Shipper {
  sg4::Host* host = nullptr;
  sg4::Host* sink = nullptr;
  double lat      = 0;
  int left        = 0; // batches still to write
  std::deque<int> ready;
  sg4::MutexPtr mutex;
  sg4::ConditionVariablePtr cv;
};

// Progress on stderr once the command passes 10 s of wall time (`before`
// is what it ran before this row), then every 10 s; a command that passed
// 10 s already said which row starts, so the first line waits 10 s.
struct Progress {
  const char* label;
  long total;
  double before;
  long done = 0;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  double next = before >= 10 ? before + 10 : 10;
  void write_done(long n)
  {
    done += n;
    double wall = before + std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (wall >= next) {
      fprintf(stderr, "ferry-topo: %s: %ld of %ld writes, simulated %.3f s, %.0f s wall\n", label, done, total,
              sg4::Engine::get_clock(), wall);
      next = wall + 10;
    }
  }
};

// One batch: count writes of `bytes`, one after another (the node's lock),
// each paying its latencies (request, each pull's request and data,
// reply), the transfer, and the group server's time. Without a server the
// writes of a batch are one transfer of their sum after their latencies:
// the same max-min shares, count times fewer events.
void ship_batch(const sim_path_spec* s, Shipper& sh, const sim_batch& b, Progress& pr)
{
  if (b.count <= 0 || b.bytes <= 0)
    return;
  double chunks = std::ceil(b.bytes / s->pull - 1e-9);
  double wlat   = (2 + 2 * chunks) * sh.lat;
  int rounds    = s->msg_cost > 0 ? b.count : 1;
  int per       = s->msg_cost > 0 ? 1 : b.count;
  for (int w = 0; w < rounds; w++) {
    sg4::this_actor::sleep_for(wlat * per);
    sg4::Comm::sendto(sh.host, sh.sink, static_cast<uint64_t>(b.bytes * per + 0.5));
    if (s->msg_cost > 0)
      sg4::Exec::init()->set_flops_amount(s->msg_cost * kServiceSpeed)->set_host(sh.sink)->start()->wait();
    pr.write_done(per);
  }
}

} // namespace

// What the path actors share while the engine runs.
struct PathState {
  std::vector<Shipper> ships;
  std::vector<sg4::Host*> xhosts;
  std::vector<std::vector<int>> xbatches;
  Progress pr;
};

static std::shared_ptr<PathState> build_paths(const sim_path_spec* s, sg4::NetZone* zone)
{
  auto st    = std::make_shared<PathState>(PathState{{}, {}, {}, Progress{s->label, s->nwrites, s->wall_before}});
  auto links = make_links(zone, s->nlinks, s->link_bw);
  std::vector<sg4::Host*> sinks(s->nsinks);
  for (int k = 0; k < s->nsinks; k++)
    sinks[k] = zone->create_host("g" + std::to_string(k), kServiceSpeed)->seal();
  auto* drop = zone->create_host("mpi", kServiceSpeed)->seal();
  // CM02 weighs a flow by its route latency: a private link per sender
  // carries a nominal latency, divided by the messages a merged transfer
  // stands for (its shares); the real latencies are slept explicitly.
  constexpr double kWeightLat = 1e-9;
  auto host_with_route = [&](const std::string& hn, const int* r, size_t n, double shares) {
    auto* h = zone->create_host(hn, 1e9)->seal();
    std::vector<sg4::LinkInRoute> up;
    up.emplace_back(zone->create_link("p" + hn, 1e18)->set_latency(kWeightLat / shares)->seal());
    for (size_t q = 0; q < n; q++)
      up.emplace_back(links[r[q]]);
    zone->add_route(h->get_netpoint(), nullptr, nullptr, nullptr, up, false);
    return h;
  };
  auto& ships = st->ships;
  ships.resize(s->nship);
  for (int k = 0; k < s->nship; k++) {
    ships[k].host  = host_with_route("s" + std::to_string(k), s->ship_route + s->ship_off[k],
                                     s->ship_off[k + 1] - s->ship_off[k], 1);
    ships[k].sink  = sinks[s->ship_sink[k]];
    ships[k].lat   = s->ship_lat[k];
    ships[k].mutex = sg4::Mutex::create();
    ships[k].cv    = sg4::ConditionVariable::create();
  }
  auto& xhosts   = st->xhosts;
  auto& xbatches = st->xbatches;
  xhosts.resize(s->nxfer);
  xbatches.resize(s->nxfer);
  for (int j = 0; j < s->nxfer; j++)
    xhosts[j] = host_with_route("x" + std::to_string(j), s->xfer_route + s->xfer_off[j],
                                s->xfer_off[j + 1] - s->xfer_off[j], std::max(1, s->xfer_msgs[j]));
  zone->seal();
  for (int b = 0; b < s->nbatch; b++) {
    Shipper& sh = ships[s->batch[b].ship];
    sh.left++;
    if (s->batch[b].xfer < 0)
      sh.ready.push_back(b);
    else
      xbatches[s->batch[b].xfer].push_back(b);
  }
  for (int k = 0; k < s->nship; k++)
    sg4::Actor::create("ship" + std::to_string(k), ships[k].host, [s, k, st]() {
      Shipper& sh = st->ships[k];
      while (sh.left > 0) {
        int b;
        {
          std::unique_lock<sg4::Mutex> lock(*sh.mutex);
          while (sh.ready.empty())
            sh.cv->wait(lock);
          b = sh.ready.front();
          sh.ready.pop_front();
        }
        sh.left--;
        ship_batch(s, sh, s->batch[b], st->pr);
      }
    });
  for (int j = 0; j < s->nxfer; j++)
    sg4::Actor::create("xfer" + std::to_string(j), xhosts[j], [s, j, st, drop]() {
      if (s->xfer_lat[j] > 0)
        sg4::this_actor::sleep_for(s->xfer_lat[j]);
      if (s->xfer_off[j + 1] > s->xfer_off[j] && s->xfer_bytes[j] > 0)
        sg4::Comm::sendto(st->xhosts[j], drop, static_cast<uint64_t>(s->xfer_bytes[j] + 0.5));
      for (int b : st->xbatches[j]) {
        Shipper& sh = st->ships[s->batch[b].ship];
        std::unique_lock<sg4::Mutex> lock(*sh.mutex);
        sh.ready.push_back(b);
        sh.cv->notify_all();
      }
    });
  return st;
}

extern "C" int sim_engine_paths(const sim_path_spec* s, double* t_sim)
{
  return simulate([s](sg4::NetZone* zone) { return build_paths(s, zone); }, t_sim);
}
